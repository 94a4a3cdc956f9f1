package io.gpdedup.store.container;

import io.gpdedup.protocol.model.Fingerprint;
import java.nio.ByteBuffer;

/**
 * Encodes chunk records into one direct buffer kept from record to record, for appending to a
 * container file: a heap array would be copied into a temporary direct buffer by the channel on
 * every write (a tenth of the store's CPU in a first backup). Not thread-safe: one per appender,
 * used under its lock.
 */
public final class RecordBuffer {
    private final RecordFormat format;
    private ByteBuffer encoded = ByteBuffer.allocateDirect(0);

    public RecordBuffer() {
        this(RecordFormat.PLAIN);
    }

    public RecordBuffer(RecordFormat format) {
        this.format = format;
    }

    /** The encoded record between the returned buffer's position and limit, valid until the next call. */
    public ByteBuffer encode(ChunkRecord record) {
        return encode(record.fingerprint(), record.codecId(), record.rawLength(), ByteBuffer.wrap(record.payload()));
    }

    /** As {@link #encode(ChunkRecord)}, for a record whose payload is between {@code payload}'s position and limit. */
    public ByteBuffer encode(Fingerprint fingerprint, int codecId, int rawLength, ByteBuffer payload) {
        int length = format.overhead() + payload.remaining();
        if (encoded.capacity() < length) {
            encoded = ByteBuffer.allocateDirect(Math.max(length, 2 * encoded.capacity()));
        }
        encoded.clear();
        format.write(encoded, fingerprint, codecId, rawLength, payload);
        return encoded.flip();
    }
}
