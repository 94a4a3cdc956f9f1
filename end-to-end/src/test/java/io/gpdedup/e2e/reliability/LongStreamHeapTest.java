package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.RepeatedBlock;
import io.gpdedup.e2e.data.Sha256Sink;
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
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two long backups at once through a host agent with build-dist's flags: what the agent holds
 * after each young collection stays what its streams have in flight, instead of their batches
 * spilling into the old generation and piling up there (which took the agent to its whole max
 * heap during long backups while it held a few tens of MiB). Read from the agent's GC log.
 */
@Timeout(300)
class LongStreamHeapTest {
    private static final long STREAM_BYTES = 1536L << 20;
    /** Two streams' batches in flight, with their compressed copies and frames, and the rest of the agent. */
    private static final long MAX_HEAP_AFTER_YOUNG_MIB = 96;

    @TempDir
    Path dir;

    @Test
    void theAgentsHeapStaysWhatItsStreamsHoldThroughLongBackups() throws Exception {
        Path gcLog = dir.resolve("agent-gc.log");
        Path exe = Dist.copyWithAgentFlags(dir.resolve("install"), "gpbackup_dedup_plugin", "-Xlog:gc:file=" + gcLog);
        byte[][] blocks = {new byte[32 << 20], new byte[32 << 20]};
        new Random(61).nextBytes(blocks[0]);
        new Random(62).nextBytes(blocks[1]);
        try (AgentHost host = AgentHost.start(dir, exe, Map.of())) {
            Timestamp t = new Timestamps().next();
            List<CompletableFuture<CallResult>> backups = new ArrayList<>();
            for (int s = 0; s < 2; s++) {
                int n = s;
                backups.add(CompletableFuture.supplyAsync(() -> host.plugin().run(new RepeatedBlock(blocks[n], STREAM_BYTES), "backup_data",
                        host.cfg(), host.key(n, t, 16384 + n))));
            }
            for (CompletableFuture<CallResult> b : backups) {
                b.join().assertSucceeded();
            }
            Sha256Sink restored = new Sha256Sink();
            host.plugin().stream(null, restored, "restore_data", host.cfg(), host.key(1, t, 16385)).assertSucceeded();
            assertEquals(Sha256Sink.of(new RepeatedBlock(blocks[1], STREAM_BYTES)), restored.hex(), "the second stream restored");
        }
        List<Long> after = GcLog.pauses(gcLog).stream().filter(GcLog.Pause::young).map(GcLog.Pause::afterMiB).toList();
        System.out.printf("two backups of %d MiB through the agent: %d young collections, heap after them at most %d MiB%n",
                STREAM_BYTES >> 20, after.size(), after.stream().mapToLong(Long::longValue).max().orElse(0));
        assertTrue(after.size() > 10, "too few young collections to tell anything: " + after);
        for (long a : after) {
            assertTrue(a <= MAX_HEAP_AFTER_YOUNG_MIB, "the agent kept " + a + " MiB after a young collection: " + after);
        }
    }
}
