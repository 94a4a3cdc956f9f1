package io.gpdedup.store.s3;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.store.CrcTrailer;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The index object of one container (docs/s3.md): what a start needs to index the container
 * without reading it. Big-endian:
 *
 * <pre>
 * magic "GPDCIDX1" (8) | container id (4) | first record offset (4) | container length (8) | record count N (4)
 * N x { fingerprint (32) | record offset (4) | record length (4) } | CRC-32C of all before (4)
 * </pre>
 */
final class ContainerIndexFile {
    private static final long MAGIC = 0x4750444349445831L; // "GPDCIDX1"
    private static final int HEADER = 8 + 4 + 4 + 8 + 4;
    private static final int ENTRY = Fingerprint.LENGTH + 4 + 4;

    /** One record of the container. */
    record Entry(Fingerprint fingerprint, long offset, int length) {
    }

    /** A decoded index object. */
    record Contents(int container, long dataStart, long containerLength, List<Entry> entries) {
    }

    private ContainerIndexFile() {
    }

    /** The most entries an index object of {@code bytes} bytes holds (in the clear; a sealed one holds fewer). */
    static long entriesAtMost(long bytes) {
        return Math.max(0, bytes - HEADER - CrcTrailer.BYTES) / ENTRY;
    }

    static byte[] encode(int container, long dataStart, long containerLength, List<Entry> entries) {
        ByteBuffer b = ByteBuffer.allocate(HEADER + ENTRY * entries.size() + CrcTrailer.BYTES);
        b.putLong(MAGIC).putInt(container).putInt((int) dataStart).putLong(containerLength).putInt(entries.size());
        byte[] fp = new byte[Fingerprint.LENGTH];
        for (Entry e : entries) {
            e.fingerprint().copyTo(fp, 0);
            b.put(fp).putInt((int) e.offset()).putInt(e.length());
        }
        CrcTrailer.append(b);
        return b.array();
    }

    /** Decodes an index object; {@code null} when it is damaged (bad length, magic or checksum). */
    static Contents decode(byte[] data) {
        if (data.length < HEADER + CrcTrailer.BYTES) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        if (!CrcTrailer.matches(data) || b.getLong() != MAGIC) {
            return null;
        }
        try {
            int id = b.getInt();
            long dataStart = b.getInt();
            long length = b.getLong();
            int n = b.getInt();
            if (n < 0 || (long) n * ENTRY != data.length - HEADER - CrcTrailer.BYTES) {
                return null;
            }
            List<Entry> entries = new ArrayList<>(n);
            byte[] fp = new byte[Fingerprint.LENGTH];
            for (int i = 0; i < n; i++) {
                b.get(fp);
                long offset = b.getInt() & 0xffffffffL;
                int len = b.getInt();
                if (len <= 0 || offset + len > length) {
                    return null;
                }
                entries.add(new Entry(Fingerprint.of(fp), offset, len));
            }
            return new Contents(id, dataStart, length, entries);
        } catch (BufferUnderflowException e) {
            return null;
        }
    }
}
