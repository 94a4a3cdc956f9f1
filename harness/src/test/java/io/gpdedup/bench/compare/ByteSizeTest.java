package io.gpdedup.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ByteSizeTest {
    @ParameterizedTest
    @CsvSource({
        "1GiB, 1073741824",
        "1G, 1073741824",
        "1 gib, 1073741824",
        "128MiB, 134217728",
        "128M, 134217728",
        "512KiB, 524288",
        "1.5GiB, 1610612736",
        "1GB, 1000000000",
        "500MB, 500000000",
        "2KB, 2000",
        "1TiB, 1099511627776",
        "4096, 4096",
        "4096B, 4096",
    })
    void parsesBinaryAndDecimalUnits(String text, long bytes) {
        assertEquals(bytes, ByteSize.parse(text));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "GiB", "-1GiB", "1 GiBs", "1XB", "0", "0.1B", "one gig", "1e9"})
    void rejectsWhatIsNotAPositiveSize(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ByteSize.parse(text));
        assertTrue(e.getMessage().contains("'" + text + "'"), e.getMessage());
    }

    @Test
    void formatsInTheLargestUnitThatKeepsTheNumberAboveOne() {
        assertEquals("512 B", ByteSize.binary(512));
        assertEquals("1.00 KiB", ByteSize.binary(1024));
        assertEquals("128.00 MiB", ByteSize.binary(128L << 20));
        assertEquals("1.50 GiB", ByteSize.binary(3L << 29));
        assertEquals("203.00", ByteSize.megabytes(203_000_000));
    }

    @Test
    void throughputIsMibPerSecondOfWallTime() {
        assertEquals(128.0, ByteSize.mibPerSecond(256L << 20, 2_000_000_000L), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> ByteSize.mibPerSecond(1, 0));
    }
}
