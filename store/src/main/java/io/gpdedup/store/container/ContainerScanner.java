package io.gpdedup.store.container;

import io.gpdedup.store.chunk.Fingerprint;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Walks the records of a container to rebuild the index after a crash or a lost snapshot: a chunk
 * record is one chunk, a region one per member (the first with the region's length, the others
 * with 0: they share its record). A bad
 * record followed by no valid one is a torn tail and is cut off; a bad region followed by valid
 * records is skipped (it is damage, not a crash artefact, and cutting it would lose good chunks).
 */
public final class ContainerScanner {
    /** Receives each chunk of each valid record: where its record is and what it holds. */
    @FunctionalInterface
    public interface RecordVisitor {
        /** {@code recordLength} is 0 for a region's members after its first. */
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
                byte[] magic = c.read(pos, 4);
                if (ByteBuffer.wrap(magic).getInt() == RegionRecord.MAGIC) {
                    int shared = len;
                    for (RegionRecord.Member m : RegionRecord.decode(ByteBuffer.wrap(c.read(pos, len))).members()) {
                        visitor.record(m.fingerprint(), pos, shared);
                        shared = 0;
                    }
                } else {
                    byte[] fp = c.read(pos + 4, Fingerprint.LENGTH);
                    visitor.record(Fingerprint.of(fp), pos, len);
                }
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
        if (end - pos >= RegionRecord.FIXED_HEADER_BYTES + 4) {
            byte[] header = c.read(pos, RegionRecord.FIXED_HEADER_BYTES);
            if (ByteBuffer.wrap(header).getInt() == RegionRecord.MAGIC) {
                long len = RegionRecord.lengthFromHeader(header);
                if (len < 0 || len > end - pos || len > Integer.MAX_VALUE) {
                    return -1;
                }
                try {
                    RegionRecord.decode(ByteBuffer.wrap(c.read(pos, (int) len)));
                    return (int) len;
                } catch (CorruptRecordException e) {
                    return -1;
                }
            }
        }
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
                boolean chunk = w[i] == 'C' && w[i + 1] == 'H' && w[i + 2] == 'K' && w[i + 3] == '1';
                boolean region = w[i] == 'R' && w[i + 1] == 'G' && w[i + 2] == 'N' && w[i + 3] == '1';
                if ((chunk || region) && validRecordAt(c, base + i, end) > 0) {
                    return base + i;
                }
            }
            base += WINDOW;
        }
        return -1;
    }
}
