package io.gpdedup.store.chunk;

import io.gpdedup.store.chunk.Fingerprint;

/** One entry of a recipe: which chunk, and how many uncompressed bytes it contributes. */
public record ChunkRef(Fingerprint fingerprint, int length) {
}
