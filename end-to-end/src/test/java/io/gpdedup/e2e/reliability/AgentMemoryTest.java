package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.AgentHost;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.GcLog;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.e2e.shell.CallResult;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A thousand backup_data calls arriving at once at a cold host agent whose heap is a quarter of
 * what build-dist gives it: each call's memory is reserved before it is allocated, calls beyond
 * the budget wait their turn, and the agent never runs out of heap (it runs with
 * {@code -XX:+ExitOnOutOfMemoryError}, so one OutOfMemoryError would fail every call in progress).
 * Every call must succeed; the agent's GC log gives the heap figures.
 */
@Timeout(1200)
class AgentMemoryTest {
    private static final String HEAP = "256m";
    private static final int CALL_BYTES = 3_000_000;
    /** Many times what the agent's heap admits at once, so most calls wait their turn in its admission queue. */
    private static final int CALLS = 1000;

    @TempDir
    Path dir;

    @Test
    void concurrentBackupsOnAColdAgentAllSucceedWithinItsHeap() throws Exception {
        Path gcLog = dir.resolve("agent-gc.log");
        Path exe = Dist.copyWithAgentFlags(dir.resolve("install"), "gpbackup_dedup_plugin", "-Xmx" + HEAP + " -Xlog:gc:file=" + gcLog);
        try (AgentHost host = AgentHost.start(dir, exe, Map.of())) {
            Timestamp t = new Timestamps().next();
            ExecutorService pool = Executors.newFixedThreadPool(CALLS);
            List<Future<CallResult>> results = new ArrayList<>();
            long started = System.nanoTime();
            try {
                for (int i = 0; i < CALLS; i++) {
                    int n = i;
                    results.add(pool.submit(() -> host.plugin().run(new SeededBytes(10_000 + n, CALL_BYTES), "backup_data", host.cfg(),
                            host.key(n % 4, t, 16384 + n))));
                }
                int failed = 0;
                StringBuilder failures = new StringBuilder();
                for (Future<CallResult> f : results) {
                    CallResult r = f.get();
                    if (r.exitCode() != 0 || !r.stderr().isEmpty()) {
                        if (failed++ < 5) {
                            failures.append(r).append('\n');
                        }
                    }
                }
                double seconds = (System.nanoTime() - started) / 1e9;
                String log = host.agentLog();
                assertFalse(log.contains("OutOfMemoryError"), () -> "the agent ran out of heap:\n" + log);
                assertEquals(0, failed, () -> "calls that failed:\n" + failures);
                Heap heap = Heap.of(GcLog.pauses(gcLog));
                System.out.printf("%d concurrent backup_data calls of %d bytes, agent -Xmx%s: all succeeded in %.1f s; heap before GC at most %d MiB,"
                        + " after GC at most %d MiB, of %d MiB committed, %d GCs%n", CALLS, CALL_BYTES, HEAP, seconds, heap.maxBefore, heap.maxAfter,
                        heap.maxCommitted, heap.pauses);
                assertTrue(heap.pauses > 0, "no GC logged: the figures would be empty");
            } finally {
                pool.shutdownNow();
            }
            // One restore of the last call, to see the objects are whole (the others are alike).
            byte[] last = host.plugin().run("restore_data", host.cfg(), host.key((CALLS - 1) % 4, t, 16384 + CALLS - 1)).assertSucceeded().stdout();
            assertEquals(sha(SeededBytes.array(10_000 + CALLS - 1, CALL_BYTES)), sha(last), "the last object restored");
        }
    }

    private static String sha(byte[] b) {
        return io.gpdedup.e2e.data.Sha256Sink.of(b);
    }

    private record Heap(long maxBefore, long maxAfter, long maxCommitted, int pauses) {
        static Heap of(List<GcLog.Pause> pauses) {
            long before = 0;
            long after = 0;
            long committed = 0;
            for (GcLog.Pause p : pauses) {
                before = Math.max(before, p.beforeMiB());
                after = Math.max(after, p.afterMiB());
                committed = Math.max(committed, p.committedMiB());
            }
            return new Heap(before, after, committed, pauses.size());
        }
    }
}
