package io.gpdedup.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.OneLineUsageErrors;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The chunk size study runs on either generated table and refuses a table it does not know in one line. */
class ChunkSizeStudyTest {
    @Test
    void studiesTheTableItIsGiven() {
        Run run = run("--table", "lineitem", "--size-mib", "2", "--avg", "16384,65536", "--threads", "1");
        assertEquals(0, run.exit, run.err);
        assertTrue(run.out.startsWith("Base: lineitem table, "), run.out);
        assertTrue(run.out.contains("| mutation |"), run.out);
    }

    @Test
    void anUnknownTableIsOneLine() {
        Run run = run("--table", "customers");
        assertEquals(2, run.exit, run.err);
        assertEquals(1, run.err.strip().lines().count(), run.err);
        assertTrue(run.err.contains("unknown table \"customers\": one of orders, lineitem"), run.err);
    }

    private record Run(int exit, String out, String err) {
    }

    private static Run run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            int exit = OneLineUsageErrors.on(new ChunkSizeStudy()).execute(args);
            return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
    }
}
