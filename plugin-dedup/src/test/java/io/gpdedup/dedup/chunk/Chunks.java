package io.gpdedup.dedup.chunk;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/** Test helpers: reference boundaries from the pure function, and boundaries from a stream. */
public final class Chunks {
    private Chunks() {
    }

    /** Chunk lengths from applying {@link Chunker#cut} to the whole array. */
    public static List<Integer> cutAll(Chunker chunker, byte[] data) {
        List<Integer> lengths = new ArrayList<>();
        int off = 0;
        while (off < data.length) {
            int n = chunker.cut(data, off, data.length - off);
            lengths.add(n);
            off += n;
        }
        return lengths;
    }

    /** Chunk lengths from a {@link ChunkStream}, checking offsets are contiguous on the way. */
    static List<Integer> stream(Chunker chunker, InputStream in) {
        List<Integer> lengths = new ArrayList<>();
        long expectedOffset = 0;
        try (ChunkStream chunks = chunker.stream(in)) {
            while (chunks.next()) {
                if (chunks.streamOffset() != expectedOffset) {
                    throw new AssertionError("chunk at " + chunks.streamOffset() + ", expected " + expectedOffset);
                }
                lengths.add(chunks.length());
                expectedOffset += chunks.length();
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lengths;
    }

    /** Bytes from java.util.Random, whose algorithm the JDK specifies: stable across JDKs. */
    static byte[] random(long seed, int size) {
        byte[] b = new byte[size];
        new Random(seed).nextBytes(b);
        return b;
    }
}
