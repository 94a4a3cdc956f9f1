package io.gpdedup.store.container;

import io.gpdedup.protocol.model.Fingerprint;
import java.nio.ByteBuffer;

/**
 * How a unit's chunk records are laid out in its containers: {@link #PLAIN} ({@link ChunkRecord},
 * docs/format.md section 2.2) or sealed under the unit's data key ({@code io.gpdedup.store.crypt}).
 * A unit reads only records of its own format, so a plaintext record planted in an encrypted
 * unit is damage, never data.
 */
public interface RecordFormat {
    /** The plaintext record, checked by its CRC-32C. */
    RecordFormat PLAIN = new RecordFormat() {
        @Override
        public int overhead() {
            return ChunkRecord.OVERHEAD;
        }

        @Override
        public int headerBytes() {
            return ChunkRecord.HEADER_BYTES;
        }

        @Override
        public int magic() {
            return ChunkRecord.MAGIC;
        }

        @Override
        public int lengthFromHeader(byte[] header) {
            int stored = ChunkRecord.storedLengthFromHeader(header);
            return stored < 0 || stored > Integer.MAX_VALUE - ChunkRecord.OVERHEAD ? -1 : stored + ChunkRecord.OVERHEAD;
        }

        @Override
        public void write(ByteBuffer out, Fingerprint fingerprint, int codecId, int rawLength, ByteBuffer payload) {
            ChunkRecord.write(out, fingerprint, codecId, rawLength, payload);
        }

        @Override
        public ChunkRecord decode(ByteBuffer record) {
            return ChunkRecord.decode(record);
        }
    };

    /** Bytes a record takes beyond its payload. */
    int overhead();

    /** Bytes at the start of a record that {@link #lengthFromHeader} needs. */
    int headerBytes();

    /** The big-endian int every record of this format starts with (what a scan looks for past damage). */
    int magic();

    /** The whole record's length as its first {@link #headerBytes()} bytes claim it, or -1 if they are not a record header. */
    int lengthFromHeader(byte[] header);

    /** Writes a record at {@code out}'s position (advanced by {@link #overhead()} plus the payload); {@code payload} is left unchanged. */
    void write(ByteBuffer out, Fingerprint fingerprint, int codecId, int rawLength, ByteBuffer payload);

    /**
     * The record between {@code record}'s position and limit (left unchanged); throws
     * {@link CorruptRecordException} when it is not a whole, intact record of this format.
     */
    ChunkRecord decode(ByteBuffer record);

    /** A whole record of {@code r} in a new array. */
    default byte[] encode(ChunkRecord r) {
        ByteBuffer b = ByteBuffer.allocate(overhead() + r.payload().length);
        write(b, r.fingerprint(), r.codecId(), r.rawLength(), ByteBuffer.wrap(r.payload()));
        return b.array();
    }
}
