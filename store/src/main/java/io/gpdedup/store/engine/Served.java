package io.gpdedup.store.engine;

import io.gpdedup.store.chunk.StoredChunk;

/** A chunk as a client that takes regions gets it: whole, or as its place in the region holding it. */
public sealed interface Served {
    /** The chunk as stored. */
    record Whole(StoredChunk chunk) implements Served {
    }

    /**
     * The region holding the chunk (its codec, raw length and payload), which one it is ({@code key},
     * the same for every chunk of it), and where the chunk's bytes are in it once decoded.
     */
    record InRegion(long key, StoredChunk region, int start, int length) implements Served {
    }
}
