package io.gpdedup.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BatchesTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
    void runsKeepOrderAndLimits(long seed) {
        Random r = new Random(seed);
        int fixed = r.nextInt(50);
        int maxFrame = fixed + 100 + r.nextInt(1000);
        int maxCount = 1 + r.nextInt(20);
        List<Integer> sizes = new ArrayList<>();
        for (int i = r.nextInt(500); i > 0; i--) {
            sizes.add(r.nextInt(maxFrame - fixed + 1));
        }
        List<List<Integer>> runs = Batches.split(sizes, Integer::intValue, fixed, maxFrame, maxCount);
        List<Integer> joined = new ArrayList<>();
        for (int i = 0; i < runs.size(); i++) {
            List<Integer> run = runs.get(i);
            assertTrue(run.size() <= maxCount);
            assertTrue(fixed + run.stream().mapToLong(Integer::longValue).sum() <= maxFrame);
            if (!sizes.isEmpty()) {
                assertFalse(run.isEmpty(), "no empty run unless the input is empty");
            }
            if (i + 1 < runs.size()) {
                // Greedy: the next entry would not have fitted or the run was full.
                List<Integer> next = runs.get(i + 1);
                assertTrue(run.size() == maxCount || fixed + run.stream().mapToLong(Integer::longValue).sum() + next.get(0) > maxFrame);
            }
            joined.addAll(run);
        }
        assertEquals(sizes, joined);
    }

    @Test
    void anEmptyListIsOneEmptyRun() {
        assertEquals(List.of(List.of()), Batches.split(List.<Integer>of(), Integer::intValue, 10, 100, 5));
    }

    @Test
    void anEntryLargerThanAFrameIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Batches.split(List.of(10, 95), Integer::intValue, 10, 100, 5));
        assertTrue(e.getMessage().contains("entry 1"), e.getMessage());
    }
}
