package io.gpdedup.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.bench.BenchRun;
import io.gpdedup.store.OneLineErrors;
import org.junit.jupiter.api.Test;

/** The chunk size study runs on either generated table and refuses a table it does not know in one line. */
class ChunkSizeStudyTest {
    @Test
    void studiesTheTableItIsGiven() {
        BenchRun run = study("--table", "lineitem", "--size-mib", "2", "--avg", "16384,65536", "--threads", "1");
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().startsWith("Base: lineitem table, "), run.out());
        assertTrue(run.out().contains("| mutation |"), run.out());
    }

    @Test
    void anUnknownTableIsOneLine() {
        BenchRun run = study("--table", "customers");
        assertEquals(2, run.exit(), run.err());
        assertEquals(1, run.err().strip().lines().count(), run.err());
        assertTrue(run.err().contains("unknown table \"customers\": one of orders, lineitem, accounts"), run.err());
    }

    private static BenchRun study(String... args) {
        return BenchRun.capture(() -> OneLineErrors.on(new ChunkSizeStudy()).execute(args));
    }
}
