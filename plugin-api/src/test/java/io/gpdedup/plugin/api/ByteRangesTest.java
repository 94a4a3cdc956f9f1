package io.gpdedup.plugin.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ByteRangesTest {
    @Test
    void parsesGprestoreForm() {
        ByteRanges r = ByteRanges.parse("2 0 700000 900000 900001");
        assertEquals(2, r.count());
        assertEquals(0, r.start(0));
        assertEquals(700000, r.end(0));
        assertEquals(900000, r.start(1));
        assertEquals(900001, r.end(1));
        assertEquals(700001, r.totalBytes());
    }

    @ParameterizedTest
    @ValueSource(strings = {"1 3 10\n", "1 3 10\r\n", "1 3 10"})
    void toleratesOneTrailingNewline(String text) {
        assertEquals(ByteRanges.of(3, 10), ByteRanges.parse(text));
    }

    @Test
    void acceptsEmptyRangesOfEmptyTables() {
        ByteRanges r = ByteRanges.parse("3 0 5 5 5 5 9");
        assertEquals(9, r.totalBytes());
    }

    /** What gpbackup_helper writes for tables a segment's TOC lacks (Go's zero value) or for no tables at all. */
    @Test
    void acceptsTheHelpersZeroRangesAnywhereAndNoRangesAtAll() {
        ByteRanges r = ByteRanges.parse("4 0 100 0 0 100 250 0 0");
        assertEquals(250, r.totalBytes());
        r.requireWithin(250);
        assertThrows(PluginException.class, () -> r.requireWithin(249));
        ByteRanges none = ByteRanges.parse("0");
        assertEquals(0, none.count());
        none.requireWithin(0);
        assertThrows(PluginException.class, () -> ByteRanges.parse("2 100 250 0 1"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "\n", "1", "1 3", "1 3 10 11", "2 0 5", "1 10 3", "2 5 10 0 3", "2 0 10 5 20",
        "1  3 10", " 1 3 10", "1 3 10 ", "1 3 10\n\n", "1 -3 10", "1 3 1e3", "1 3 10\t", "x", "1 3 99999999999999999999",
        "3000000 0 1"})
    void rejectsAnythingElse(String text) {
        assertThrows(PluginException.class, () -> ByteRanges.parse(text));
    }

    @Test
    void rejectsRangesPastTheEnd() {
        ByteRanges r = ByteRanges.parse("1 900000 900001");
        r.requireWithin(900001);
        assertThrows(PluginException.class, () -> r.requireWithin(900000));
    }

    @Test
    void rejectsHugeFilesBeforeParsing(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("offsets");
        byte[] big = new byte[ByteRanges.MAX_FILE_BYTES + 1];
        java.util.Arrays.fill(big, (byte) '1');
        Files.write(f, big);
        PluginException e = assertThrows(PluginException.class, () -> ByteRanges.read(f));
        assertEquals(true, e.getMessage().contains("larger than"));
    }

    /** Fixed-seed round trip: any ascending, non-overlapping list written as gprestore would parses back exactly. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 1234})
    void roundTripsRandomRangeLists(long seed) {
        Random rnd = new Random(seed);
        int n = 1 + rnd.nextInt(200);
        long[] pairs = new long[2 * n];
        long pos = 0;
        for (int i = 0; i < n; i++) {
            pos += rnd.nextInt(1000);
            pairs[2 * i] = pos;
            pos += rnd.nextInt(1000);
            pairs[2 * i + 1] = pos;
        }
        ByteRanges r = ByteRanges.of(pairs);
        assertEquals(n, r.count());
        for (int i = 0; i < n; i++) {
            assertEquals(pairs[2 * i], r.start(i));
            assertEquals(pairs[2 * i + 1], r.end(i));
        }
    }
}
