package io.gpdedup.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.bench.BenchRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What `compare` says, in one line, when its options are wrong or it cannot go on. */
class CompareOptionsTest {
    @Test
    void anUnknownTableIsOneLineNamingTheTablesThereAre() {
        BenchRun run = BenchRun.of("compare", "--table", "customers", "--tools", "borg");
        assertEquals(2, run.exit(), run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(run.err().contains("unknown table \"customers\": one of orders, lineitem, accounts"), run.err());
        assertFalse(run.err().contains("Exception"), run.err());
    }

    @Test
    void aFailureWhileRunningIsOneLineAndExitOne(@TempDir Path dir) throws IOException {
        Path tiny = Files.writeString(dir.resolve("tiny.copy"), "1\ta\n2\tb\n3\tc\n");
        BenchRun run = BenchRun.of("compare", "--copy-file", tiny.toString(), "--tools", "borg", "--concurrent", "0",
                "--work-dir", dir.toString());
        assertEquals(1, run.exit(), run.err());
        List<String> lines = run.err().strip().lines().toList();
        assertEquals("gpdedup-bench compare: " + tiny + " has 3 rows; a comparison needs a table of at least 1000", lines.get(lines.size() - 1),
                run.err());
        assertFalse(run.err().contains("Exception") || run.err().contains("\tat "), run.err());
        try (var left = Files.list(dir)) {
            assertEquals(List.of(tiny), left.toList(), "no scratch directory kept when no tool ran");
        }
    }

    @Test
    void otherBadOptionsAreOneLineAndExitTwo() {
        for (String[] args : List.of(new String[] {"--rounds", "0"}, new String[] {"--agent", "maybe"}, new String[] {"--tools", "tar"},
                new String[] {"--tools", "gpdedup-s3"}, new String[] {"--no-such-option"}, new String[] {"--rounds", "two"},
                new String[] {"--copy-file", "/nonexistent/t.copy", "--tools", "borg"}, new String[] {"--warm-up=lots", "--tools", "gpdedup"},
                new String[] {"--size", "0", "--tools", "borg"})) {
            String[] compare = new String[args.length + 1];
            compare[0] = "compare";
            System.arraycopy(args, 0, compare, 1, args.length);
            BenchRun run = BenchRun.of(compare);
            assertEquals(2, run.exit(), String.join(" ", args) + ": " + run.err());
            assertEquals(1, run.err().strip().lines().count(), String.join(" ", args) + ":\n" + run.err());
            assertTrue(run.err().startsWith("gpdedup-bench compare: "), run.err());
            assertFalse(run.err().contains("Usage:"), run.err());
        }
    }
}
