package io.gpdedup.store.protocol;

import io.gpdedup.store.chunk.Fingerprint;
import io.gpdedup.store.codec.Codec;
import java.util.Objects;

/**
 * One chunk sent in PUT_CHUNKS: the payload decodes (per codec) to {@code rawLength} bytes whose
 * SHA-256 is the fingerprint. The payload array is not copied: do not change it once handed over.
 */
public record ChunkUpload(Fingerprint fingerprint, Codec codec, int rawLength, byte[] payload) {
    public ChunkUpload {
        Objects.requireNonNull(fingerprint, "fingerprint");
        Objects.requireNonNull(codec, "codec");
        Objects.requireNonNull(payload, "payload");
        if (rawLength < 0) {
            throw new IllegalArgumentException("raw length " + rawLength + " < 0");
        }
    }

    @Override
    public String toString() {
        return "ChunkUpload[" + fingerprint + ", " + codec + ", raw " + rawLength + ", payload " + payload.length + "]";
    }
}
