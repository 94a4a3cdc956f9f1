package io.gpdedup.protocol.model;

import io.gpdedup.protocol.model.Fingerprint;

/** One entry of a recipe: which chunk, and how many uncompressed bytes it contributes. */
public record ChunkRef(Fingerprint fingerprint, int length) {
}
