package io.gpdedup.store.chunk;

import io.gpdedup.store.codec.Codec;

/** A chunk as kept in a container: the payload exactly as the client sent it, and how to decode it. */
public record StoredChunk(Codec codec, int rawLength, byte[] payload) {
}
