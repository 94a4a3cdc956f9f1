package io.gpdedup.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.pg.TableShape;
import io.gpdedup.protocol.naming.RemoteName;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A small comparison round of gpdedup alone against a real store process and real plugin
 * processes, both started from this test's class path on loopback ephemeral ports.
 */
@Timeout(120)
class GpdedupRunTest {
    private static GpdedupCommands commands() {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        return GpdedupCommands.classPath(java, System.getProperty("java.class.path"));
    }

    @Test
    void aRoundBacksUpChangesAndRestoresAndCountsTheBytesSent(@TempDir Path dir) throws IOException {
        StreamSet streams = StreamSet.generate(dir.resolve("streams"), TableShape.ORDERS, 4L << 20, 11, 2);
        ByteArrayOutputStream progress = new ByteArrayOutputStream();
        Comparison c = new Comparison(streams, List.of("gpdedup"),
                (name, d) -> new GpdedupTool(commands(), d, dir.resolve("logs"), Map.of(), null, null, 120), List.of(Step.values()),
                new PrintStream(progress, true, StandardCharsets.UTF_8));
        List<Observation> obs = c.round(0, dir.resolve("round"));
        assertEquals(Step.values().length, obs.size());
        assertTrue(obs.stream().noneMatch(Observation::failed), () -> obs.toString());
        Observation first = obs.get(0);
        Observation repeat = obs.get(1);
        Observation clustered = obs.get(2);
        long length = streams.base().length();

        // The first backup sends every chunk, compressed: less than the stream, more than nothing.
        assertTrue(first.result().chunkBytesSent() > length / 10 && first.result().chunkBytesSent() < length,
                "first backup chunk payloads: " + first.result().chunkBytesSent());
        assertTrue(first.result().wireBytesUp() > first.result().chunkBytesSent(), "the wire carries the payloads and the protocol");
        assertTrue(first.physicalGrowth() > 0 && first.repoGrowth() >= first.physicalGrowth());
        // Once the backups are over, the store recompresses what they wrote by itself, and the run waits for it.
        assertTrue(first.settled() != null && first.settledGrowth() < first.repoGrowth() * 0.95,
                "recompressed after the first backup: " + first.settled() + " of " + first.repoGrowth());

        // The repeat sends no chunk, only lookups and the recipe.
        assertEquals(0, repeat.result().chunkBytesSent());
        assertEquals(0, repeat.physicalGrowth());
        assertTrue(repeat.result().wireBytesUp() > 0 && repeat.result().wireBytesUp() < length / 100,
                "repeat backup wire bytes: " + repeat.result().wireBytesUp());

        // The clustered update stores about its changed rows, far less than the first backup.
        assertTrue(clustered.physicalGrowth() > 0 && clustered.physicalGrowth() < first.physicalGrowth() / 4,
                "after clustered update: " + clustered.physicalGrowth());

        Observation restore = obs.get(obs.size() - 1);
        assertEquals(Step.RESTORE, restore.step());
        assertEquals(streams.files().get(3).length(), restore.result().run().outBytes());
        for (Observation o : obs) {
            assertTrue(o.result().run().wallNanos() > 0);
            assertTrue(o.result().run().cpuNanos() > 0, "the plugin process used CPU: " + o);
            assertTrue(o.result().serverCpuNanos() >= 0, "store CPU is read from /proc: " + o);
        }
        String report = new Report(streams, List.of("gpdedup"), obs).gpdedupCosts();
        assertTrue(report.contains("| first backup |"), report);
        assertTrue(progress.toString(StandardCharsets.UTF_8).contains("SHA-256 ok"));
    }

    @Test
    void aWarmUpBacksUnrelatedRowsUpBeforeTheFirstStepAndCountsNoneOfThem(@TempDir Path dir) throws IOException {
        StreamSet streams = StreamSet.generate(dir.resolve("streams"), TableShape.ORDERS, 4L << 20, 11, 2);
        StreamFile warm = StreamSet.unrelated(dir.resolve("warm-up"), TableShape.ORDERS, 4L << 20, 1, 2011, 1).get(0);
        Observation cold = firstBackup(streams, dir.resolve("cold"), null);
        Observation warmed = firstBackup(streams, dir.resolve("warm"), warm);

        // The same chunks, stored once, whatever the store held before: the warm-up shares none and is not counted.
        // (Only the unit's chunking settings, a few bytes the first backup into a unit stores, went in with the warm-up.)
        assertTrue(Math.abs(cold.physicalGrowth() - warmed.physicalGrowth()) < 1024,
                "stored chunk bytes " + warmed.physicalGrowth() + " warmed, " + cold.physicalGrowth() + " cold");
        assertTrue(Math.abs(cold.result().chunkBytesSent() - warmed.result().chunkBytesSent()) < 1024,
                "chunk bytes sent " + warmed.result().chunkBytesSent() + " warmed, " + cold.result().chunkBytesSent() + " cold");
        assertTrue(Math.abs(warmed.repoGrowth() - cold.repoGrowth()) < cold.repoGrowth() / 20,
                "repository growth " + warmed.repoGrowth() + " warmed, " + cold.repoGrowth() + " cold");
        // The warm-up did run, through the same store.
        String warmKey = RemoteName.fromLocalPath(GpdedupTool.warmUpKey()).path();
        PluginLogLine line = PluginLogLine.last(dir.resolve("warm").resolve("gpdedup").resolve("plugin-logs"), warmKey)
                .orElseThrow(() -> new AssertionError("the warm-up logged no backup_data line"));
        assertEquals(warm.length(), line.bytes());
    }

    private static Observation firstBackup(StreamSet streams, Path dir, StreamFile warmUp) throws IOException {
        Comparison c = new Comparison(streams, List.of("gpdedup"), (name, d) -> {
            GpdedupTool tool = new GpdedupTool(commands(), d, dir.resolve("logs"), Map.of(), null, null, 120);
            return warmUp == null ? tool : tool.warmingUpWith(warmUp);
        }, List.of(Step.FIRST), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        List<Observation> obs = c.round(0, dir);
        assertTrue(obs.stream().noneMatch(Observation::failed), () -> obs.toString());
        return obs.get(0);
    }
}
