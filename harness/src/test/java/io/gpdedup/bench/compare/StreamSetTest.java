package io.gpdedup.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.pg.TableShape;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class StreamSetTest {
    @ParameterizedTest
    @EnumSource(TableShape.class)
    void writesFourVersionsWithTheirHashesAndChangedBytes(TableShape table, @TempDir Path dir) throws IOException {
        StreamSet set = StreamSet.generate(dir, table, 2L << 20, 7, 2);
        List<StreamFile> f = set.files();
        assertEquals(List.of("base", "clustered", "inserted", "scattered"), f.stream().map(StreamFile::step).toList());
        for (StreamFile s : f) {
            byte[] bytes = Files.readAllBytes(s.path());
            assertEquals(s.length(), bytes.length);
            assertEquals(s.sha256(), HexFormat.of().formatHex(sha256(bytes)));
        }
        long base = f.get(0).length();
        assertTrue(Math.abs(base - (2L << 20)) < (2L << 20) / 20, "base within 5% of the asked size: " + base);
        assertEquals(base, f.get(0).leastNewBytes());
        // 5% of rows move with new values; 1% of rows are new; 0.1% change in place.
        assertTrue(f.get(1).leastNewBytes() > base * 0.03 && f.get(1).leastNewBytes() < base * 0.07, "clustered: " + f.get(1).leastNewBytes());
        assertTrue(f.get(2).leastNewBytes() > base * 0.005 && f.get(2).leastNewBytes() < base * 0.015, "inserted: " + f.get(2).leastNewBytes());
        assertEquals(f.get(2).leastNewBytes(), f.get(2).length() - f.get(1).length(), "inserted rows only add bytes");
        assertTrue(f.get(3).leastNewBytes() > 0 && f.get(3).leastNewBytes() < base * 0.003, "scattered: " + f.get(3).leastNewBytes());
        for (int i = 1; i < f.size(); i++) {
            assertNotEquals(f.get(i - 1).sha256(), f.get(i).sha256());
        }
        if (table == TableShape.ACCOUNTS) {
            assertTrue(set.zstdRatio() > 20, "integers and a blank filler compress far: " + set.zstdRatio());
        } else {
            assertTrue(set.zstdRatio() > 2 && set.zstdRatio() < 5, "COPY text of text and numbers compresses about 3x: " + set.zstdRatio());
        }
    }

    @Test
    void unrelatedStreamsSplitTheSizeAndShareNoContent(@TempDir Path dir) throws IOException {
        List<StreamFile> f = StreamSet.unrelated(dir, TableShape.ORDERS, 2L << 20, 2, 7, 2);
        assertEquals(2, f.size());
        for (StreamFile s : f) {
            byte[] bytes = Files.readAllBytes(s.path());
            assertEquals(s.sha256(), HexFormat.of().formatHex(sha256(bytes)));
            assertTrue(Math.abs(bytes.length - (1L << 20)) < (1L << 20) / 20, "half the size each: " + bytes.length);
        }
        byte[] a = Files.readAllBytes(f.get(0).path());
        byte[] b = Files.readAllBytes(f.get(1).path());
        // No 4 KiB window of the second stream (after its first rows) appears in the first.
        String first = new String(a, java.nio.charset.StandardCharsets.ISO_8859_1);
        String window = new String(b, 1 << 19, 4096, java.nio.charset.StandardCharsets.ISO_8859_1);
        assertEquals(-1, first.indexOf(window));
    }

    @Test
    void theSameSeedGivesTheSameBytes(@TempDir Path dir) throws IOException {
        StreamSet a = StreamSet.generate(dir.resolve("a"), TableShape.ORDERS, 1L << 20, 3, 1);
        StreamSet b = StreamSet.generate(dir.resolve("b"), TableShape.ORDERS, 1L << 20, 3, 2);
        assertEquals(a.files().stream().map(StreamFile::sha256).toList(), b.files().stream().map(StreamFile::sha256).toList());
    }

    @Test
    void reusesStreamsOfTheSameTableSizeAndSeedAndRegeneratesOthers(@TempDir Path dir) throws IOException {
        StreamSet first = StreamSet.reuseOrGenerate(dir, TableShape.ORDERS, 1L << 20, 3, 2);
        java.nio.file.attribute.FileTime written = Files.getLastModifiedTime(first.base().path());
        Files.setLastModifiedTime(first.base().path(), java.nio.file.attribute.FileTime.fromMillis(0));
        StreamSet again = StreamSet.reuseOrGenerate(dir, TableShape.ORDERS, 1L << 20, 3, 2);
        assertEquals(first.files(), again.files());
        assertEquals(first.zstdRatio(), again.zstdRatio());
        assertEquals(0, Files.getLastModifiedTime(again.base().path()).toMillis(), "reused, not rewritten");
        StreamSet other = StreamSet.reuseOrGenerate(dir, TableShape.ORDERS, 1L << 20, 4, 2);
        assertNotEquals(first.base().sha256(), other.base().sha256());
        assertTrue(written.toMillis() > 0);
        StreamSet lineitem = StreamSet.reuseOrGenerate(dir, TableShape.LINEITEM, 1L << 20, 4, 2);
        assertNotEquals(other.base().sha256(), lineitem.base().sha256());
        assertEquals(lineitem.files(), StreamSet.reuseOrGenerate(dir, TableShape.LINEITEM, 1L << 20, 4, 2).files());
    }

    @Test
    void manifestsFromBeforeTheChoiceOfTableAreOrders(@TempDir Path dir) throws IOException {
        StreamSet first = StreamSet.reuseOrGenerate(dir, TableShape.ORDERS, 1L << 20, 3, 2);
        Path manifest = dir.resolve("streams.properties");
        Files.write(manifest, Files.readAllLines(manifest).stream().filter(l -> !l.startsWith("table=")).toList());
        Files.setLastModifiedTime(first.base().path(), java.nio.file.attribute.FileTime.fromMillis(0));
        assertEquals(first.files(), StreamSet.reuseOrGenerate(dir, TableShape.ORDERS, 1L << 20, 3, 2).files());
        assertEquals(0, Files.getLastModifiedTime(first.base().path()).toMillis(), "reused, not rewritten");
        StreamSet lineitem = StreamSet.reuseOrGenerate(dir, TableShape.LINEITEM, 1L << 20, 3, 2);
        assertNotEquals(first.base().sha256(), lineitem.base().sha256());
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
