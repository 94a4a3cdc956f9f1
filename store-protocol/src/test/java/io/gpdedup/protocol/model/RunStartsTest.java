package io.gpdedup.protocol.model;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class RunStartsTest {
    @Test
    void everyPositionFindsTheRunThatHoldsIt() {
        // Runs of 3, 1, 4 and 2: positions 0-2, 3, 4-7, 8-9.
        long[] starts = {0, 3, 4, 8, 10};
        int[] expected = {0, 0, 0, 1, 2, 2, 2, 2, 3, 3};
        for (int pos = 0; pos < expected.length; pos++) {
            assertEquals(expected[pos], RunStarts.runAt(starts, pos), "position " + pos);
        }
        // Past the end: the last run (callers check their bounds first).
        assertEquals(3, RunStarts.runAt(starts, 10));
    }

    @Test
    void oneRunAndNone() {
        assertEquals(0, RunStarts.runAt(new long[] {0, 5}, 4));
        assertEquals(0, RunStarts.runAt(new long[] {0}, 0));
    }
}
