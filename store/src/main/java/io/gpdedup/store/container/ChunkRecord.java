package io.gpdedup.store.container;

import io.gpdedup.protocol.model.Fingerprint;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * One chunk record as laid out in a container: magic, fingerprint, codec id, raw length, stored
 * length, payload, CRC-32C over everything before it.
 */
public record ChunkRecord(Fingerprint fingerprint, int codecId, int rawLength, byte[] payload) {
    public static final int MAGIC = 0x43484B31; // "CHK1"
    public static final int HEADER_BYTES = 45;
    /** Header plus trailing CRC: a record is {@code OVERHEAD + payload length} bytes. */
    public static final int OVERHEAD = HEADER_BYTES + 4;

    public int encodedLength() {
        return OVERHEAD + payload.length;
    }

    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(encodedLength());
        writeTo(b);
        return b.array();
    }

    /**
     * Writes the record at {@code out}'s position, which it advances by {@link #encodedLength()}.
     * Into a direct buffer, the record reaches a file without the copy a heap array costs there.
     */
    public void writeTo(ByteBuffer out) {
        write(out, fingerprint, codecId, rawLength, ByteBuffer.wrap(payload));
    }

    /**
     * Writes the record of a chunk whose payload is between {@code payload}'s position and limit
     * (left unchanged) at {@code out}'s position, which it advances by {@code OVERHEAD} plus the
     * payload's length: for a payload that is a view of a larger buffer, without copying it first.
     */
    public static void write(ByteBuffer out, Fingerprint fingerprint, int codecId, int rawLength, ByteBuffer payload) {
        int start = out.position();
        byte[] fp = new byte[Fingerprint.LENGTH];
        fingerprint.copyTo(fp, 0);
        out.putInt(MAGIC);
        out.put(fp);
        out.put((byte) codecId);
        out.putInt(rawLength);
        out.putInt(payload.remaining());
        out.put(payload.duplicate());
        out.putInt(crc(out.duplicate().limit(out.position()).position(start)));
    }

    /**
     * Parses a whole record; throws {@link CorruptRecordException} if its magic, lengths or CRC are wrong.
     */
    public static ChunkRecord decode(byte[] rec) {
        return decode(ByteBuffer.wrap(rec));
    }

    /**
     * As {@link #decode(byte[])}, for the record between {@code rec}'s position and limit (left
     * unchanged), such as one read into a buffer kept from read to read: only its payload is copied.
     */
    public static ChunkRecord decode(ByteBuffer rec) {
        ByteBuffer b = rec.slice();
        int length = b.remaining();
        if (length < OVERHEAD) {
            throw new CorruptRecordException("record of " + length + " bytes is shorter than its header");
        }
        if (b.getInt(0) != MAGIC) {
            throw new CorruptRecordException("bad record magic");
        }
        int stored = b.getInt(41);
        if (stored != length - OVERHEAD) {
            throw new CorruptRecordException("stored length " + stored + " does not match the record size " + length);
        }
        if (b.getInt(HEADER_BYTES + stored) != crc(b.duplicate().limit(HEADER_BYTES + stored))) {
            throw new CorruptRecordException("record checksum mismatch");
        }
        byte[] payload = new byte[stored];
        b.get(HEADER_BYTES, payload);
        byte[] fp = new byte[Fingerprint.LENGTH];
        b.get(4, fp);
        return new ChunkRecord(Fingerprint.of(fp, 0), b.get(36) & 0xff, b.getInt(37), payload);
    }

    /** The stored length a header claims, or -1 when the header is not a record header. */
    static int storedLengthFromHeader(byte[] header) {
        ByteBuffer b = ByteBuffer.wrap(header);
        if (b.getInt(0) != MAGIC) {
            return -1;
        }
        int stored = b.getInt(41);
        return stored < 0 ? -1 : stored;
    }

    /** The CRC-32C of the bytes between {@code bytes}' position and limit (it consumes them). */
    static int crc(ByteBuffer bytes) {
        CRC32C c = new CRC32C();
        c.update(bytes);
        return (int) c.getValue();
    }
}
