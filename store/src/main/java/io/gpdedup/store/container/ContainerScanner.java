package io.gpdedup.store.container;

import io.gpdedup.store.chunk.Fingerprint;
import java.io.IOException;

/**
 * Walks the records of a container to rebuild the index after a crash or a lost snapshot. A bad
 * record followed by no valid one is a torn tail and is cut off; a bad region followed by valid
 * records is skipped (it is damage, not a crash artefact, and cutting it would lose good chunks).
 */
public final class ContainerScanner {
    /** Receives each valid record: where it is and what it holds. */
    @FunctionalInterface
    public interface RecordVisitor {
        void record(Fingerprint fingerprint, long offset, int recordLength);
    }

    /** What one scan found. */
    public record ScanResult(int records, long damagedBytes, long truncatedBytes) {
    }

    private static final int WINDOW = 1 << 20;

    private ContainerScanner() {
    }

    /** Scans from {@code from} (a record boundary) to the end, truncating a torn tail. */
    public static ScanResult scan(Container c, long from, RecordVisitor visitor) throws IOException {
        long pos = from;
        long end = c.size();
        int records = 0;
        long damaged = 0;
        while (pos < end) {
            int len = validRecordAt(c, pos, end);
            if (len > 0) {
                byte[] fp = c.read(pos + 4, Fingerprint.LENGTH);
                visitor.record(Fingerprint.of(fp), pos, len);
                records++;
                pos += len;
                continue;
            }
            long next = nextValidRecord(c, pos + 1, end);
            if (next < 0) {
                long cut = end - pos;
                c.truncate(pos);
                return new ScanResult(records, damaged, cut);
            }
            damaged += next - pos;
            pos = next;
        }
        return new ScanResult(records, damaged, 0);
    }

    /** The length of the valid record at {@code pos}, or -1. */
    static int validRecordAt(Container c, long pos, long end) throws IOException {
        if (end - pos < ChunkRecord.OVERHEAD) {
            return -1;
        }
        int stored = ChunkRecord.storedLengthFromHeader(c.read(pos, ChunkRecord.HEADER_BYTES));
        if (stored < 0 || stored > end - pos - ChunkRecord.OVERHEAD) {
            return -1;
        }
        int len = stored + ChunkRecord.OVERHEAD;
        try {
            ChunkRecord.decode(c.read(pos, len));
            return len;
        } catch (CorruptRecordException e) {
            return -1;
        }
    }

    private static long nextValidRecord(Container c, long from, long end) throws IOException {
        long base = from;
        while (base + ChunkRecord.OVERHEAD <= end) {
            int n = (int) Math.min(WINDOW + 3L, end - base);
            byte[] w = c.read(base, n);
            for (int i = 0; i + 4 <= n; i++) {
                if (w[i] == 'C' && w[i + 1] == 'H' && w[i + 2] == 'K' && w[i + 3] == '1'
                        && validRecordAt(c, base + i, end) > 0) {
                    return base + i;
                }
            }
            base += WINDOW;
        }
        return -1;
    }
}
