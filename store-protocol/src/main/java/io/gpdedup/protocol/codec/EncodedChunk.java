package io.gpdedup.protocol.codec;

import io.gpdedup.protocol.codec.Codec;
import java.util.Arrays;

/** A chunk's payload as it travels and is stored: {@code payload[0, length)} decoded by {@code codec}. */
public record EncodedChunk(Codec codec, byte[] payload, int length) {
    /** The payload trimmed to its length (a copy only when the buffer is larger). */
    public byte[] exactPayload() {
        return length == payload.length ? payload : Arrays.copyOf(payload, length);
    }
}
