package io.gpdedup.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.pg.TableShape;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The round runner against in-memory tools: order, growth bookkeeping, the restore check. */
class ComparisonTest {
    /** A tool whose repository keeps each snapshot's file content; a restore "outputs" the stored bytes. */
    static class MemoryTool implements BackupTool {
        final String name;
        final List<String> log;
        final Map<String, byte[]> snapshots = new HashMap<>();
        boolean closed;
        long size;

        MemoryTool(String name, List<String> log) {
            this.name = name;
            this.log = log;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public String version() {
            return name + " 1";
        }

        @Override
        public String settings() {
            return "";
        }

        @Override
        public void open() {
            size = 100;
        }

        @Override
        public StepResult backup(StreamFile stream, String snapshot) throws IOException {
            log.add(name + ":" + snapshot);
            byte[] b = Files.readAllBytes(stream.path());
            snapshots.put(snapshot, b);
            size += b.length;
            return StepResult.local(new Measured(1_000_000, 1, 0, null, stream.path()));
        }

        @Override
        public StepResult restore(String snapshot) {
            log.add(name + ":restore-" + snapshot);
            byte[] b = snapshots.get(snapshot);
            String sha = java.util.HexFormat.of().formatHex(StreamSet.sha256().digest(b));
            return StepResult.local(new Measured(1_000_000, 1, b.length, sha, Path.of("log")));
        }

        @Override
        public long repositoryBytes() {
            return size;
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    @Test
    void everyToolDoesAStepBeforeAnyDoesTheNextAndTheOrderRotates(@TempDir Path dir) throws IOException {
        StreamSet streams = StreamSet.generate(dir, TableShape.ORDERS, 64 << 10, 1, 1);
        List<String> log = new ArrayList<>();
        List<MemoryTool> made = new ArrayList<>();
        Comparison c = new Comparison(streams, List.of("a", "b"), (name, d) -> {
            MemoryTool t = new MemoryTool(name, log);
            made.add(t);
            return t;
        }, List.of(Step.FIRST, Step.CLUSTERED, Step.RESTORE), quiet());
        List<Observation> r0 = c.round(0, dir.resolve("r0"));
        List<Observation> r1 = c.round(1, dir.resolve("r1"));
        assertEquals(List.of("a:first", "b:first", "a:clustered", "b:clustered", "a:restore-clustered", "b:restore-clustered",
                "b:first", "a:first", "b:clustered", "a:clustered", "b:restore-clustered", "a:restore-clustered"), log);
        assertTrue(made.stream().allMatch(t -> t.closed), "every tool is closed after its round");
        assertEquals(streams.base().length(), r0.get(0).repoGrowth(), "growth is counted per step");
        assertEquals(streams.files().get(1).length(), r0.get(2).repoGrowth());
        assertEquals(1, r1.get(0).round());
    }

    @Test
    void aRestoreThatDiffersFromTheStreamIsRecordedAsAFailure(@TempDir Path dir) throws IOException {
        StreamSet streams = StreamSet.generate(dir, TableShape.ORDERS, 64 << 10, 2, 1);
        StreamFile base = streams.base();
        // The tool backs up the base bytes, but the restore must equal the scattered version.
        StreamFile wrong = new StreamFile("scattered", "s", base.path(), base.length(), streams.files().get(3).sha256(), 1);
        StreamSet set = new StreamSet(List.of(base, base, base, wrong), 3.0);
        Comparison c = new Comparison(set, List.of("a"), (name, d) -> new MemoryTool(name, new ArrayList<>()),
                List.of(Step.SCATTERED, Step.RESTORE), quiet());
        List<Observation> obs = c.round(0, dir.resolve("r"));
        assertFalse(obs.get(0).failed());
        Observation restore = obs.get(1);
        assertTrue(restore.failed());
        assertTrue(restore.failure().contains("a restored " + base.length() + " bytes"), restore.failure());
        assertTrue(restore.failure().contains("expected " + base.length() + " bytes with SHA-256 " + wrong.sha256()), restore.failure());
        Report report = new Report(set, List.of("a"), obs);
        assertEquals(0, report.values("a", Step.RESTORE, Observation::mibPerSecond).length, "a failed step gives no figure");
        assertEquals(1, report.failures().size());
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }
}
