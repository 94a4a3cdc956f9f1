package io.gpdedup.dedup.chunk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ChunkerParamsTest {

    @Test
    void ofAverageSpreadsByFour() {
        ChunkerParams p = ChunkerParams.ofAverage(65536);
        assertEquals(new ChunkerParams(16384, 65536, 262144), p);
        assertEquals(16, p.avgBits());
        assertEquals("16384/65536/262144", p.toString());
    }

    @Test
    void defaultIsValid() {
        ChunkerParams p = ChunkerParams.DEFAULT;
        assertTrue(p.minSize() < p.avgSize() && p.avgSize() < p.maxSize());
    }

    @ParameterizedTest(name = "{0}/{1}/{2} rejected: {3}")
    @CsvSource({
        "1024, 3000, 8192, power of two",
        "1024, 128, 8192, power of two in",
        "1024, 33554432, 67108864, power of two in",
        "32, 256, 1024, min size",
        "4096, 4096, 8192, min size",
        "5000, 4096, 8192, min size",
        "1024, 4096, 4096, max size",
        "1024, 4096, 2048, max size",
        "1048576, 4194304, 134217728, max size",
    })
    void rejectsBadParams(int min, int avg, int max, String message) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new ChunkerParams(min, avg, max));
        assertTrue(e.getMessage().contains(message), e.getMessage());
    }

    @Test
    void acceptsExtremesOfTheRange() {
        new ChunkerParams(ChunkerParams.MIN_MIN, ChunkerParams.MIN_AVG, ChunkerParams.MIN_AVG + 1);
        new ChunkerParams(ChunkerParams.MAX_AVG - 1, ChunkerParams.MAX_AVG, ChunkerParams.MAX_MAX);
    }
}
