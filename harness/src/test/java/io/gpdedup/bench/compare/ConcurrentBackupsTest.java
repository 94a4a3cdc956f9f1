package io.gpdedup.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Concurrent first backups against in-memory tools: which repository gets which stream, growth, failures, the report. */
class ConcurrentBackupsTest {
    private static List<StreamFile> streams(Path dir, int n) throws IOException {
        List<StreamFile> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Path p = dir.resolve("s" + i);
            Files.write(p, new byte[1000 * (i + 1)]);
            out.add(new StreamFile("stream-" + i, "s", p, 1000 * (i + 1), "00", 1000 * (i + 1)));
        }
        return out;
    }

    @Test
    void oneToolTakesEveryStreamAndSeveralTakeOneEach(@TempDir Path dir) throws IOException {
        List<StreamFile> s = streams(dir, 3);
        List<String> log = Collections.synchronizedList(new ArrayList<>());
        ComparisonTest.MemoryTool store = new ComparisonTest.MemoryTool("gpdedup", log);
        ConcurrentBackups.Result one = ConcurrentBackups.run("gpdedup", List.of(store), s);
        assertNull(one.failure());
        assertEquals(3, store.snapshots.size());
        assertEquals(6000, one.bytes());
        assertEquals(6000, one.repoGrowth());
        assertTrue(store.closed);

        List<BackupTool> repos = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            repos.add(new ComparisonTest.MemoryTool("borg", log));
        }
        ConcurrentBackups.Result each = ConcurrentBackups.run("borg", repos, s);
        assertNull(each.failure());
        for (int i = 0; i < 3; i++) {
            ComparisonTest.MemoryTool t = (ComparisonTest.MemoryTool) repos.get(i);
            assertEquals(List.of("stream-" + i), List.copyOf(t.snapshots.keySet()));
            assertTrue(t.closed);
        }
        assertEquals(6000, each.repoGrowth());
    }

    @Test
    void aFailedBackupFailsTheBatchAndIsReported(@TempDir Path dir) throws IOException {
        List<StreamFile> s = streams(dir, 2);
        ComparisonTest.MemoryTool broken = new ComparisonTest.MemoryTool("gpdedup", new ArrayList<>()) {
            @Override
            public StepResult backup(StreamFile stream, String snapshot) throws IOException {
                throw new IOException("disk full");
            }
        };
        ConcurrentBackups.Result r = ConcurrentBackups.run("gpdedup", List.of(broken), s);
        assertNotNull(r.failure());
        assertTrue(r.failure().contains("disk full"), r.failure());
        assertTrue(broken.closed);
        StreamFile base = s.get(0);
        Report report = new Report(new StreamSet(List.of(base, base, base, base), 3.0), List.of("gpdedup"), List.of(), List.of(r));
        assertTrue(report.failures().get(0).startsWith("2 concurrent streams, gpdedup: "), report.failures().toString());
        assertTrue(report.concurrentTable().contains("FAILED: disk full"), report.concurrentTable());
    }

    @Test
    void theTargetIsTheRatioOfTotalThroughputs(@TempDir Path dir) throws IOException {
        StreamFile base = streams(dir, 1).get(0);
        long gib = 1L << 30;
        List<ConcurrentBackups.Result> batches = List.of(
                new ConcurrentBackups.Result("gpdedup", 2, gib, 2_000_000_000L, 4_000_000_000L, 1, null),
                new ConcurrentBackups.Result("borg", 2, gib, 3_000_000_000L, 6_000_000_000L, 1, null));
        Report report = new Report(new StreamSet(List.of(base, base, base, base), 3.0), List.of("gpdedup", "borg"), List.of(), batches);
        Target t = report.targets().stream().filter(x -> x.what().startsWith("2 concurrent streams")).findFirst().orElseThrow();
        assertEquals(1.5, t.ratio(), 1e-9);
        assertTrue(t.met());
        assertEquals(4.0 / (gib / 1e9), batches.get(0).cpuSecondsPerGB(), 1e-9);
        assertTrue(report.concurrentTable().contains("| 2 streams | borg |"), report.concurrentTable());
    }
}
