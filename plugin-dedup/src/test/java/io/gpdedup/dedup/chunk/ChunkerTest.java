package io.gpdedup.dedup.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ChunkerTest {
    private static final ChunkerParams SMALL = ChunkerParams.ofAverage(4096);

    @Test
    void emptyRegionCutsNothing() {
        assertEquals(0, new Chunker(SMALL).cut(new byte[10], 5, 0));
    }

    @Test
    void shortRegionIsOneChunk() {
        Chunker chunker = new Chunker(SMALL);
        assertEquals(1, chunker.cut(new byte[] {42}, 0, 1));
        assertEquals(SMALL.minSize(), chunker.cut(new byte[SMALL.minSize()], 0, SMALL.minSize()));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void chunksRespectMinAndMax(long seed) {
        for (ChunkerParams p : List.of(SMALL, new ChunkerParams(300, 1024, 1500), ChunkerParams.ofAverage(65536))) {
            Chunker chunker = new Chunker(p);
            byte[] data = Chunks.random(seed, 4 << 20);
            List<Integer> lengths = Chunks.cutAll(chunker, data);
            for (int i = 0; i < lengths.size(); i++) {
                int n = lengths.get(i);
                assertTrue(n <= p.maxSize(), p + ": chunk " + i + " has " + n + " bytes");
                if (i < lengths.size() - 1) {
                    assertTrue(n > p.minSize(), p + ": chunk " + i + " has " + n + " bytes");
                }
            }
            double mean = (double) data.length / lengths.size();
            // Normalised chunking keeps the mean near avg; a broken mask would be off by 2x or more.
            assertTrue(mean > 0.7 * p.avgSize() && mean < 1.5 * p.avgSize(), p + ": mean chunk " + mean);
        }
    }

    @Test
    void constantDataIsCutAtMax() {
        byte[] zeros = new byte[10 * SMALL.maxSize() + 123];
        List<Integer> lengths = Chunks.cutAll(new Chunker(SMALL), zeros);
        for (int i = 0; i < lengths.size() - 1; i++) {
            assertTrue(lengths.get(i) <= SMALL.maxSize());
        }
        assertEquals(zeros.length, lengths.stream().mapToInt(Integer::intValue).sum());
    }

    @Test
    void cutDependsOnlyOnTheRegion() {
        byte[] data = Chunks.random(9, 64 << 10);
        byte[] padded = new byte[data.length + 100];
        System.arraycopy(data, 0, padded, 37, data.length);
        Chunker chunker = new Chunker(SMALL);
        assertEquals(chunker.cut(data, 0, data.length), chunker.cut(padded, 37, data.length));
    }

    @Test
    void regionOutsideTheArrayIsRejected() {
        Chunker chunker = new Chunker(SMALL);
        assertThrows(IndexOutOfBoundsException.class, () -> chunker.cut(new byte[10], 5, 6));
        assertThrows(IndexOutOfBoundsException.class, () -> chunker.cut(new byte[10], -1, 2));
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {11, 12, 13, 14, 15, 16})
    void insertionChangesOnlyNearbyChunks(long seed) {
        Chunker chunker = new Chunker(SMALL);
        byte[] base = Chunks.random(seed, 4 << 20);
        byte[] inserted = Chunks.random(seed + 1000, 777);
        int at = base.length / 2 + (int) seed * 1001;
        byte[] edited = new byte[base.length + inserted.length];
        System.arraycopy(base, 0, edited, 0, at);
        System.arraycopy(inserted, 0, edited, at, inserted.length);
        System.arraycopy(base, at, edited, at + inserted.length, base.length - at);

        List<Integer> before = Chunks.cutAll(chunker, base);
        List<Integer> after = Chunks.cutAll(chunker, edited);
        List<Long> beforeStarts = starts(before);
        List<Long> afterStarts = starts(after);

        // Every chunk that ends before the insertion point is identical (same start and length).
        int unchangedBefore = 0;
        for (int i = 0; i < before.size() && beforeStarts.get(i) + before.get(i) <= at; i++) {
            assertEquals(beforeStarts.get(i), afterStarts.get(i));
            assertEquals(before.get(i), after.get(i));
            unchangedBefore++;
        }
        // After the insertion, boundaries resynchronise: chunks reappear shifted by the insertion length.
        Set<Long> shiftedOld = new HashSet<>();
        for (int i = 0; i < before.size(); i++) {
            if (beforeStarts.get(i) >= at) {
                shiftedOld.add((beforeStarts.get(i) + inserted.length) << 24 | before.get(i));
            }
        }
        int unchangedAfter = 0;
        for (int i = 0; i < after.size(); i++) {
            if (shiftedOld.contains(afterStarts.get(i) << 24 | after.get(i))) {
                unchangedAfter++;
            }
        }
        int changed = after.size() - unchangedBefore - unchangedAfter;
        assertTrue(changed >= 1, "the chunk holding the insertion must change");
        assertTrue(changed <= 4, "an insertion of " + inserted.length + " bytes changed " + changed + " chunks");
        assertTrue(unchangedAfter >= shiftedOld.size() - 4, "only " + unchangedAfter + " of " + shiftedOld.size()
                + " later chunks survived");
    }

    private static List<Long> starts(List<Integer> lengths) {
        List<Long> starts = new ArrayList<>();
        long off = 0;
        for (int n : lengths) {
            starts.add(off);
            off += n;
        }
        return starts;
    }
}
