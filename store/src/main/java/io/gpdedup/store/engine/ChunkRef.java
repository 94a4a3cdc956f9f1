package io.gpdedup.store.engine;

import io.gpdedup.store.Fingerprint;

/** One entry of a recipe: which chunk, and how many uncompressed bytes it contributes. */
public record ChunkRef(Fingerprint fingerprint, int length) {
}
