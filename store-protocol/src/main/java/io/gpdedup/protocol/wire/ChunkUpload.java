package io.gpdedup.protocol.wire;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import java.nio.ByteBuffer;
import java.util.Objects;

/**
 * One chunk sent in PUT_CHUNKS: the payload (between its buffer's position and limit) decodes (per
 * codec) to {@code rawLength} bytes whose SHA-256 is the fingerprint. The bytes are not copied: a
 * client hands over an array it no longer changes, and a server decodes the payload as a view of
 * the received frame, which it does not reuse.
 */
public record ChunkUpload(Fingerprint fingerprint, Codec codec, int rawLength, ByteBuffer payload) {
    public ChunkUpload {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(payload, "payload");
        if (rawLength < 0) {
            throw new IllegalArgumentException("raw length " + rawLength + " < 0");
        }
        payload = payload.slice();
    }

    /** The whole of {@code payload}. */
    public ChunkUpload(Fingerprint fingerprint, Codec codec, int rawLength, byte[] payload) {
        this(fingerprint, codec, rawLength, ByteBuffer.wrap(Objects.requireNonNull(payload, "payload")));
    }

    /** The payload bytes, in a buffer of the caller's own (position and limit may be changed freely). */
    @Override
    public ByteBuffer payload() {
        return payload.duplicate();
    }

    public int payloadLength() {
        return payload.remaining();
    }

    @Override
    public String toString() {
        return "ChunkUpload[" + fingerprint + ", " + codec + ", raw " + rawLength + ", payload " + payloadLength() + "]";
    }
}
