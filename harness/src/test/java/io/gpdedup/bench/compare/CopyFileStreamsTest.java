package io.gpdedup.bench.compare;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.bench.workload.TableVersion;
import io.gpdedup.pg.TableShape;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The versions `compare --copy-file` makes of a user's table: the same changes as the generated tables get, made on its rows. */
class CopyFileStreamsTest {
    @Test
    void makesTheThreeVersionsFromTheFilesRows(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("t.copy");
        try (InputStream in = TableVersion.baseOfSize(TableShape.LINEITEM, 3, 2L << 20).open()) {
            Files.copy(in, file);
        }
        List<String> base = lines(file);
        StreamSet set = CopyFileStreams.of(file, dir.resolve("versions"), 5);
        List<StreamFile> f = set.files();
        assertEquals(List.of("base", "clustered", "inserted", "scattered"), f.stream().map(StreamFile::step).toList());
        assertEquals(file, f.get(0).path(), "the file itself is the base, not a copy");
        for (StreamFile s : f) {
            byte[] bytes = Files.readAllBytes(s.path());
            assertEquals(s.length(), bytes.length);
            assertEquals(s.sha256(), HexFormat.of().formatHex(sha256(bytes)));
        }
        assertTrue(set.zstdRatio() > 2, "compresses: " + set.zstdRatio());

        // Clustered: 5% of rows leave one run and come back at the end, changed, each as long as it was.
        List<String> clustered = lines(f.get(1).path());
        int moved = (int) CopyFileStreams.share(base.size(), StreamSet.CLUSTERED_FRACTION);
        List<String> kept = clustered.subList(0, base.size() - moved);
        List<String> back = clustered.subList(base.size() - moved, base.size());
        int from = firstDifference(base, kept);
        assertEquals(base.subList(from + moved, base.size()), kept.subList(from, kept.size()));
        for (int i = 0; i < moved; i++) {
            assertChangedRow(base.get(from + i), back.get(i));
        }
        assertEquals(bytes(back), f.get(1).leastNewBytes());
        assertEquals(f.get(0).length(), f.get(1).length());

        // Inserted: 1% new rows in runs, every old row still there in order.
        List<String> inserted = lines(f.get(2).path());
        assertEquals(clustered.size() + CopyFileStreams.share(clustered.size(), StreamSet.INSERTED_FRACTION), inserted.size());
        assertEquals(f.get(1).length() + f.get(2).leastNewBytes(), f.get(2).length());
        assertEquals(clustered, withoutNew(inserted, clustered));

        // Scattered: 0.1% of rows changed where they are.
        List<String> scattered = lines(f.get(3).path());
        assertEquals(inserted.size(), scattered.size());
        int changed = 0;
        long changedBytes = 0;
        for (int i = 0; i < inserted.size(); i++) {
            if (!inserted.get(i).equals(scattered.get(i))) {
                assertChangedRow(inserted.get(i), scattered.get(i));
                changed++;
                changedBytes += scattered.get(i).length();
            }
        }
        assertEquals(CopyFileStreams.share(inserted.size(), StreamSet.SCATTERED_FRACTION), changed);
        assertEquals(changedBytes, f.get(3).leastNewBytes());
    }

    @Test
    void aChangedRowKeepsItsEscapesDelimitersAndLength() {
        byte[] row = "7\\tab\\\\\t12.50\t\\N\tno digits here\n".getBytes(StandardCharsets.US_ASCII);
        byte[] changed = CopyFileStreams.change(row, row.length, 1, 42);
        String before = new String(row, StandardCharsets.US_ASCII);
        String after = new String(changed, StandardCharsets.US_ASCII);
        assertNotEquals(before, after);
        assertChangedRow(before, after);
        byte[] letters = "only\twords\n".getBytes(StandardCharsets.US_ASCII);
        assertEquals("pnly\twords\n", new String(CopyFileStreams.change(letters, letters.length, 1, 1), StandardCharsets.US_ASCII));
    }

    @Test
    void piecesAreTheFileCutAtRowEnds(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("t.copy");
        try (InputStream in = TableVersion.baseOfSize(TableShape.ORDERS, 4, 1L << 20).open()) {
            Files.copy(in, file);
        }
        List<StreamFile> pieces = CopyFileStreams.pieces(file, dir.resolve("pieces"), 3);
        assertEquals(3, pieces.size());
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (StreamFile p : pieces) {
            byte[] b = Files.readAllBytes(p.path());
            assertEquals('\n', b[b.length - 1]);
            assertTrue(Math.abs(b.length - (1L << 20) / 3) < (1L << 20) / 30, "about a third: " + b.length);
            all.write(b);
        }
        assertArrayEquals(Files.readAllBytes(file), all.toByteArray());
    }

    @Test
    void keepsTheVersionsForTheNextRunWithTheSameFileAndSeed(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("t.copy");
        try (InputStream in = TableVersion.baseOfSize(TableShape.LINEITEM, 4, 1L << 20).open()) {
            Files.copy(in, file);
        }
        Path kept = dir.resolve("kept");
        StreamSet first = CopyFileStreams.reuseOrMake(file, kept, 5);
        assertEquals(file, first.base().path(), "the file itself is the base");
        Path clustered = first.files().get(1).path();
        assertTrue(clustered.startsWith(kept), "versions in the kept directory: " + clustered);
        Files.setLastModifiedTime(clustered, FileTime.fromMillis(0));
        StreamSet again = CopyFileStreams.reuseOrMake(file, kept, 5);
        assertEquals(first.files(), again.files());
        assertEquals(first.zstdRatio(), again.zstdRatio());
        assertEquals(0, Files.getLastModifiedTime(clustered).toMillis(), "reused, not rewritten");

        StreamSet otherSeed = CopyFileStreams.reuseOrMake(file, kept, 6);
        assertNotEquals(first.files().get(1).sha256(), otherSeed.files().get(1).sha256());
        // A table exported again, one row longer: its versions are made anew.
        Files.writeString(file, Files.readAllLines(file).get(0) + "\n", StandardOpenOption.APPEND);
        StreamSet changed = CopyFileStreams.reuseOrMake(file, kept, 6);
        assertEquals(Files.size(file), changed.base().length());
        assertNotEquals(otherSeed.files().get(1).sha256(), changed.files().get(1).sha256());
        // Generated streams asked of the same directory are not the file's versions.
        StreamSet generated = StreamSet.reuseOrGenerate(kept, TableShape.LINEITEM, changed.base().length(), 6, 1);
        assertEquals(kept.resolve("base.copy"), generated.base().path());
    }

    /** Same length, same delimiters and escapes at the same places, only digits or letters replaced. */
    private static void assertChangedRow(String before, String after) {
        assertEquals(before.length(), after.length(), before);
        for (int i = 0; i < before.length(); i++) {
            char b = before.charAt(i);
            char a = after.charAt(i);
            if (b != a) {
                assertTrue(Character.isLetterOrDigit(b) && Character.isDigit(b) == Character.isDigit(a), before + " -> " + after);
                assertTrue(i == 0 || before.charAt(i - 1) != '\\', "an escape changed: " + before + " -> " + after);
            }
        }
    }

    private static int firstDifference(List<String> a, List<String> b) {
        int i = 0;
        while (i < b.size() && a.get(i).equals(b.get(i))) {
            i++;
        }
        return i;
    }

    /** {@code inserted} with the rows that {@code before} lacks taken out (as many of each as are new). */
    private static List<String> withoutNew(List<String> inserted, List<String> before) {
        Map<String, Integer> extra = new HashMap<>();
        for (String s : inserted) {
            extra.merge(s, 1, Integer::sum);
        }
        for (String s : before) {
            extra.merge(s, -1, Integer::sum);
        }
        List<String> out = new ArrayList<>();
        for (String s : inserted) {
            int n = extra.getOrDefault(s, 0);
            if (n > 0) {
                extra.put(s, n - 1);
            } else {
                out.add(s);
            }
        }
        return out;
    }

    private static List<String> lines(Path p) throws IOException {
        return List.of(Files.readString(p, StandardCharsets.ISO_8859_1).split("(?<=\n)"));
    }

    private static long bytes(List<String> lines) {
        return lines.stream().mapToLong(String::length).sum();
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new AssertionError(e);
        }
    }
}
