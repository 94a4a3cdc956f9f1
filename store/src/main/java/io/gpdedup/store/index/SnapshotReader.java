package io.gpdedup.store.index;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The reading side of {@link IndexSnapshot}: big-endian fields from a large buffer, summed with
 * CRC-32C as they are consumed, and the entries decoded straight into primitive batches for
 * {@link ChunkIndex#insertBatch}, so ten million entries cost no object each.
 */
final class SnapshotReader {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final VarHandle INTS = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.BIG_ENDIAN);
    private static final int ENTRY = 44;
    private static final int BATCH = 4096;

    private final InputStream in;
    private final byte[] buf = new byte[1 << 20];
    private final CRC32C crc = new CRC32C();
    private int pos;
    private int limit;
    private int summed; // bytes of buf before this are in crc

    SnapshotReader(InputStream in) {
        this.in = in;
    }

    /** Makes {@code n} bytes available from pos; EOF if the stream ends first. */
    private void need(int n) throws IOException {
        if (limit - pos >= n) {
            return;
        }
        crc.update(buf, summed, pos - summed);
        System.arraycopy(buf, pos, buf, 0, limit - pos);
        limit -= pos;
        pos = 0;
        summed = 0;
        while (limit < n) {
            int r = in.read(buf, limit, buf.length - limit);
            if (r < 0) {
                throw new EOFException();
            }
            limit += r;
        }
    }

    long readLong() throws IOException {
        need(8);
        long v = (long) LONGS.get(buf, pos);
        pos += 8;
        return v;
    }

    int readInt() throws IOException {
        need(4);
        int v = (int) INTS.get(buf, pos);
        pos += 4;
        return v;
    }

    /** The CRC-32C of every byte consumed so far. */
    int checksum() {
        crc.update(buf, summed, pos - summed);
        summed = pos;
        return (int) crc.getValue();
    }

    boolean atEnd() throws IOException {
        return pos == limit && in.read() == -1;
    }

    /**
     * Reads {@code count} entries (fingerprint, container, offset, length) into {@code index};
     * false at the first one outside what {@code covered} says, or already indexed.
     */
    boolean readEntries(long count, CoveredLengths covered, ChunkIndex index) throws IOException {
        long[] keys = new long[4 * BATCH];
        int[] containers = new int[BATCH];
        int[] offsets = new int[BATCH];
        int[] lengths = new int[BATCH];
        int n = 0;
        for (long i = 0; i < count; i++) {
            need(ENTRY);
            int p = pos;
            keys[4 * n] = (long) LONGS.get(buf, p);
            keys[4 * n + 1] = (long) LONGS.get(buf, p + 8);
            keys[4 * n + 2] = (long) LONGS.get(buf, p + 16);
            keys[4 * n + 3] = (long) LONGS.get(buf, p + 24);
            int container = (int) INTS.get(buf, p + 32);
            int offset = (int) INTS.get(buf, p + 36);
            int length = (int) INTS.get(buf, p + 40);
            pos = p + ENTRY;
            long cov = covered.get(container);
            if (container <= 0 || length <= 0 || (offset & 0xffffffffL) + length > cov) {
                return false; // cov is -1 for a container the snapshot does not cover
            }
            containers[n] = container;
            offsets[n] = offset;
            lengths[n] = length;
            if (++n == BATCH) {
                if (!index.insertBatch(keys, containers, offsets, lengths, n)) {
                    return false;
                }
                n = 0;
            }
        }
        return index.insertBatch(keys, containers, offsets, lengths, n);
    }
}
