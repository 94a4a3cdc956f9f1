package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import io.gpdedup.e2e.data.PluginTestText;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * restore_data_subset: gprestore's filtered single-data-file restore asks for the byte ranges of the
 * chosen tables ({@code N s1 e1 ... sN eN}, half-open) and reads exactly those bytes back to back.
 */
class RestoreSubsetTest extends PluginContract {
    /** plugin_test.sh's data_large: 1,000,000 alphanumerics and a newline. */
    private static final byte[] LARGE = PluginTestText.generate(7, 1_000_000);

    private String largeKey;

    @Override
    protected void forgetObjectsOfThePreviousFixture() {
        largeKey = null;
    }

    static Stream<Arguments> validOffsets() {
        return Stream.of(
                        "1 3 10", // plugin_test.sh: cut -c4-10
                        "1 900000 900001", // plugin_test.sh: one byte
                        "2 0 700000 900000 900001", // plugin_test.sh: two tables
                        "1 0 1000001", // the whole object
                        "1 1000000 1000001", // the last byte
                        "3 0 0 5 5 10 20", // empty tables have equal start and end offsets
                        "4 0 10 0 0 20 30 0 0", // gpbackup_helper: "0 0" for tables the segment's TOC lacks, wherever their oid falls
                        "0") // gpbackup_helper: no table of the list on this segment
                .flatMap(o -> Stream.of(Arguments.of(o, ""), Arguments.of(o, "\n")));
    }

    @ParameterizedTest(name = "\"{0}\" + \"{1}\"")
    @MethodSource("validOffsets")
    void printsExactlyTheRequestedRanges(String offsets, String ending) throws IOException {
        Path file = offsetsFile(offsets + ending);
        byte[] out = call("restore_data_subset", cfg(), largeObject(), file.toString()).assertSucceeded().stdout();
        assertArrayEquals(expected(offsets), out, () -> "ranges " + offsets);
    }

    @ParameterizedTest(name = "\"{0}\"")
    @ValueSource(strings = {
            "2 500 600 100 200", // ranges out of order
            "2 0 100 50 150", // overlapping
            "1 999990 1000002", // runs past the end
            "1 1000002 1000003", // starts past the end
            "1 10 3", // ends before it starts
            "2 0 10", // count says two, one given
            "1 0 10 20 30", // count says one, two given
            "1 a 10", // not a number
            "1 -1 10", // negative
            "1 3.5 10", // not an integer
            "", // empty file
    })
    void malformedOffsetsFailAndPrintNothing(String offsets) throws IOException {
        call("restore_data_subset", cfg(), largeObject(), offsetsFile(offsets).toString()).assertFailed();
    }

    @Test
    void missingObjectOrOffsetsFileFailsAndPrintsNothing() throws IOException {
        Path file = offsetsFile("1 3 10");
        String absent = backupDirectory(0, timestamps.next()).singleDataFileKey();
        call("restore_data_subset", cfg(), absent, file.toString()).assertFailed();
        call("restore_data_subset", cfg(), largeObject(), tmp.resolve("gprestore_offsets_absent").toString()).assertFailed();
    }

    /** Stored once per fixture, under a single-data-file key as gprestore would ask for it. */
    private String largeObject() {
        if (largeKey == null) {
            String key = backupDirectory(0, timestamps.nextPluginTestStyle()).singleDataFileKey();
            backupData(key, LARGE);
            largeKey = key;
        }
        return largeKey;
    }

    /** Like gprestore: a temp file in /tmp named gprestore_offsets_*, one line, no newline unless given. */
    private Path offsetsFile(String content) throws IOException {
        Path file = Files.createTempFile(tmp, "gprestore_offsets_", "");
        Files.writeString(file, content);
        return file;
    }

    private static byte[] expected(String offsets) {
        long[] v = Arrays.stream(offsets.split(" ")).mapToLong(Long::parseLong).toArray();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < v[0]; i++) {
            int s = (int) v[1 + 2 * i];
            int e = (int) v[2 + 2 * i];
            out.write(LARGE, s, e - s);
        }
        return out.toByteArray();
    }
}
