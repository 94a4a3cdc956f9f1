package io.gpdedup.store.chunk;

import java.util.List;

/**
 * How to rebuild one stored object: its chunks in order, its total length, and the SHA-256 of the
 * whole stream (checked on restore after every chunk has been checked on its own).
 */
public record Recipe(List<ChunkRef> chunks, long totalLength, byte[] streamSha256) {
    public Recipe {
        chunks = List.copyOf(chunks);
        streamSha256 = streamSha256.clone();
        long sum = 0;
        for (ChunkRef c : chunks) {
            sum += c.length();
        }
        if (sum != totalLength) {
            throw new IllegalArgumentException("chunk lengths add up to " + sum + ", not " + totalLength);
        }
    }
}
