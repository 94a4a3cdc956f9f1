package io.gpdedup.store.container;

import io.gpdedup.protocol.model.Fingerprint;
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

    /** Scans plaintext records from {@code from} (a record boundary) to the end, truncating a torn tail. */
    public static ScanResult scan(Container c, long from, RecordVisitor visitor) throws IOException {
        return scan(c, from, RecordFormat.PLAIN, visitor);
    }

    /** As {@link #scan(Container, long, RecordVisitor)}, for records of {@code format}: a record of another format is damage. */
    public static ScanResult scan(Container c, long from, RecordFormat format, RecordVisitor visitor) throws IOException {
        long pos = from;
        long end = c.size();
        int records = 0;
        long damaged = 0;
        while (pos < end) {
            ChunkRecord rec = validRecordAt(c, pos, end, format);
            if (rec != null) {
                int len = format.overhead() + rec.payload().length;
                visitor.record(rec.fingerprint(), pos, len);
                records++;
                pos += len;
                continue;
            }
            long next = nextValidRecord(c, pos + 1, end, format);
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

    /** The length of the valid plaintext record at {@code pos}, or -1. */
    static int validRecordAt(Container c, long pos, long end) throws IOException {
        ChunkRecord r = validRecordAt(c, pos, end, RecordFormat.PLAIN);
        return r == null ? -1 : ChunkRecord.OVERHEAD + r.payload().length;
    }

    /** The valid record of {@code format} at {@code pos}, or null. */
    private static ChunkRecord validRecordAt(Container c, long pos, long end, RecordFormat format) throws IOException {
        if (end - pos < format.overhead()) {
            return null;
        }
        int len = format.lengthFromHeader(c.read(pos, format.headerBytes()));
        if (len < format.overhead() || len > end - pos) {
            return null;
        }
        try {
            return format.decode(java.nio.ByteBuffer.wrap(c.read(pos, len)));
        } catch (CorruptRecordException e) {
            return null;
        }
    }

    private static long nextValidRecord(Container c, long from, long end, RecordFormat format) throws IOException {
        long base = from;
        int magic = format.magic();
        while (base + format.overhead() <= end) {
            int n = (int) Math.min(WINDOW + 3L, end - base);
            byte[] w = c.read(base, n);
            for (int i = 0; i + 4 <= n; i++) {
                int at = (w[i] & 0xff) << 24 | (w[i + 1] & 0xff) << 16 | (w[i + 2] & 0xff) << 8 | (w[i + 3] & 0xff);
                if (at == magic && validRecordAt(c, base + i, end, format) != null) {
                    return base + i;
                }
            }
            base += WINDOW;
        }
        return -1;
    }
}
