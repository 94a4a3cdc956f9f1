package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class GarbageCollectionTest {
    /** Opens the engine every scenario runs on: {@link EncryptedGarbageCollectionTest} runs them all again on encrypted units. */
    DedupStoreEngine open(Path dataDir, EngineSettings settings) {
        return DedupStoreEngine.open(dataDir, settings);
    }

    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(64 << 10);

    @TempDir
    Path dir;

    @Test
    void aReopenedUnitKeepsTheChunksItOpenedWithForTheReconnectGrace() {
        // A backup's chunks, put and never committed: its lease died with the store, and its client
        // will reconnect and reference them.
        byte[] orphan = TestObjects.data(4, 8 * 4096, false);
        Fingerprint[] fps = new Fingerprint[8];
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            try (BackupLease lease = engine.unit("u1").beginBackup()) {
                for (int i = 0; i < fps.length; i++) {
                    fps[i] = Fingerprint.compute(orphan, i * 4096, 4096);
                    lease.put(fps[i], Codec.NONE, 4096, Arrays.copyOfRange(orphan, i * 4096, (i + 1) * 4096));
                }
            }
        }
        try (DedupStoreEngine engine = open(dir, SMALL.withReconnectGrace(java.time.Duration.ofHours(1)))) {
            StorageUnit unit = engine.unit("u1");
            GcReport kept = unit.collectGarbage();
            assertEquals(0, kept.chunksRemoved(), kept.toString());
            try (BackupLease lease = unit.beginBackup()) {
                boolean[] missing = lease.missing(fps);
                for (boolean m : missing) {
                    assertFalse(m, "the reconnecting backup finds its chunks");
                }
            }
        }
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            GcReport removed = engine.unit("u1").collectGarbage();
            assertEquals(8, removed.chunksRemoved(), "without the grace the orphans go: " + removed);
        }
    }

    @Test
    void containersMostlyLiveAreLeftAlone() {
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            // 15 records of 4096 bytes fill a 64 KiB container: 10 live + 5 dead is above the 50% default
            byte[] keep = TestObjects.data(1, 10 * 4096, false);
            byte[] drop = TestObjects.data(2, 5 * 4096, false);
            TestObjects.backup(unit, "keep", keep, 4096, Codec.NONE);
            TestObjects.backup(unit, "drop", drop, 4096, Codec.NONE);
            unit.deleteObjects("drop");
            GcReport r = unit.collectGarbage();
            assertEquals(0, r.containersRewritten(), r.toString());
            assertEquals(15, unit.stats().chunks());
            assertArrayEquals(keep, TestObjects.restore(unit, "keep"));
        }
    }

    @Test
    void collectsDeletedObjectsAndKeepsLiveOnes() {
        EngineSettings everyDeadByte = SMALL.withGcLiveRatio(1.0);
        try (DedupStoreEngine engine = open(dir, everyDeadByte)) {
            StorageUnit unit = engine.unit("u1");
            byte[] shared = TestObjects.data(1, 40_960, false);
            byte[] onlyA = TestObjects.data(2, 200_704, false);
            byte[] a = TestObjects.concat(shared, onlyA);
            byte[] b = TestObjects.concat(shared, TestObjects.data(3, 8192, false));
            TestObjects.backup(unit, "a", a, 4096, Codec.NONE);
            TestObjects.backup(unit, "b", b, 4096, Codec.NONE);
            UnitStats before = unit.stats();
            assertEquals(10 + 49 + 2, before.chunks());

            assertEquals(0, unit.collectGarbage().chunksRemoved(), "nothing is garbage yet");
            assertEquals(1, unit.deleteObjects("a"));
            GcReport r = unit.collectGarbage();
            assertEquals(before.chunks(), r.chunksBefore());
            assertEquals(49, r.chunksRemoved());
            assertTrue(r.containersRewritten() > 0);
            assertTrue(r.bytesReclaimed() >= 49 * 4096, r.toString());
            UnitStats after = unit.stats();
            assertEquals(12, after.chunks());
            assertEquals(12 * 4096, after.physicalBytes());
            assertTrue(after.containers() < before.containers());
            assertArrayEquals(b, TestObjects.restore(unit, "b"));
            assertTrue(unit.verify().ok());
        }
        try (DedupStoreEngine engine = open(dir, everyDeadByte)) {
            assertArrayEquals(TestObjects.concat(TestObjects.data(1, 40_960, false), TestObjects.data(3, 8192, false)),
                    TestObjects.restore(engine.unit("u1"), "b"));
            assertEquals(12, engine.unit("u1").stats().chunks());
        }
    }

    @Test
    void chunksPinnedByOpenLeasesSurvive() {
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            byte[] old = TestObjects.data(1, 81_920, false);
            TestObjects.backup(unit, "old", old, 4096, Codec.NONE);
            unit.deleteObjects("old");

            BackupLease dedup = unit.beginBackup();   // told "present": pinned
            Recipe again = TestObjects.upload(dedup, old, 4096, Codec.NONE);
            BackupLease fresh = unit.beginBackup();   // put, not committed yet: pinned
            byte[] newData = TestObjects.data(2, 81_920, false);
            Recipe freshRecipe = TestObjects.upload(fresh, newData, 4096, Codec.NONE);

            GcReport r = unit.collectGarbage();
            assertEquals(0, r.chunksRemoved(), r.toString());
            dedup.commit("old-again", again).join();
            fresh.commit("new", freshRecipe).join();
            dedup.close();
            fresh.close();
            assertArrayEquals(old, TestObjects.restore(unit, "old-again"));
            assertArrayEquals(newData, TestObjects.restore(unit, "new"));

            // once nothing references or pins them, they go
            unit.deleteObjects("");
            assertEquals(40, unit.collectGarbage().chunksRemoved());
            assertEquals(0, unit.stats().chunks());
            assertEquals(0, unit.stats().physicalBytes());
        }
    }

    /** A lease closed while its commit waits for the syncer must not leave the commit's chunks unprotected. */
    @Test
    void commitInFlightKeepsItsChunksAfterItsLeaseCloses() throws Exception {
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            DedupStorageUnit unit = (DedupStorageUnit) engine.unit("u1");
            byte[] old = TestObjects.data(1, 4 * 4096, false);
            TestObjects.backup(unit, "old", old, 4096, Codec.NONE);
            unit.deleteObjects("old");
            ExecutorService pool = Executors.newSingleThreadExecutor();
            java.util.concurrent.CompletableFuture<Void> commit;
            GcReport report;
            synchronized (unit.containers()) { // stalls the syncer before it makes anything durable
                BackupLease lease = unit.beginBackup();
                Recipe recipe = TestObjects.upload(lease, old, 4096, Codec.NONE); // all present: nothing put
                commit = lease.commit("again", recipe);
                lease.close();
                report = pool.submit(unit::collectGarbage).get(60, java.util.concurrent.TimeUnit.SECONDS);
                assertFalse(commit.isDone());
            }
            pool.shutdown();
            commit.join();
            assertEquals(0, report.chunksRemoved(), report.toString());
            assertArrayEquals(old, TestObjects.restore(unit, "again"));
        }
    }

    @Test
    void commitOfAChunkCollectedBeforeItWasPinnedFails() {
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            byte[] old = TestObjects.data(1, 8192, false);
            Recipe recipe = TestObjects.backup(unit, "old", old, 4096, Codec.NONE);
            unit.deleteObjects("old");
            try (BackupLease lease = unit.beginBackup()) {
                unit.collectGarbage();
                CompletionException e = assertThrows(CompletionException.class, () -> lease.commit("again", recipe).join());
                assertTrue(e.getCause().getMessage().contains("neither stored nor pinned"));
                assertTrue(lease.missing(new Fingerprint[] {recipe.chunks().get(0).fingerprint()})[0]);
            }
        }
    }

    /**
     * Backups that deduplicate against objects being deleted, a collector running in a loop, and
     * restores of committed objects, all at once. Every acknowledged object must restore, no
     * restore may fail, and the unit must verify clean at the end. On both backends; on S3 with a
     * third of the backups (each commit there is an upload).
     */
    @ParameterizedTest
    @EnumSource(TestEngines.Backend.class)
    void collectionRacingBackupsDeletesAndRestores(TestEngines.Backend backend) throws Exception {
        EngineSettings tiny = SMALL.withContainerSizeBytes(16 << 10).withGcLiveRatio(0.9);
        int perWriter = backend == TestEngines.Backend.S3 ? 20 : 60;
        TestEngines engines = new TestEngines(backend, dir);
        try (DedupStoreEngine engine = engines.open(tiny)) {
            StorageUnit unit = engine.unit("u1");
            // a pool of 64 "blocks"; each object is 8 blocks drawn from it, so objects share chunks
            byte[][] blocks = new byte[64][];
            for (int i = 0; i < blocks.length; i++) {
                blocks[i] = TestObjects.data(100 + i, 2048, false);
            }
            byte[] stable = objectData(new Random(0), blocks);
            TestObjects.backup(unit, "stable", stable, 2048, Codec.NONE);

            Map<String, byte[]> committed = new ConcurrentHashMap<>();
            AtomicBoolean stop = new AtomicBoolean();
            LongAdder backups = new LongAdder();
            LongAdder deduplicated = new LongAdder();
            LongAdder deletes = new LongAdder();
            LongAdder chunksCollected = new LongAdder();
            LongAdder bytesReclaimed = new LongAdder();
            ExecutorService pool = Executors.newFixedThreadPool(5);
            List<Future<?>> writers = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                int thread = t;
                writers.add(pool.submit(() -> {
                    Random r = new Random(thread);
                    for (int i = 0; i < perWriter; i++) {
                        String name = "w" + thread + "/" + i;
                        byte[] data = objectData(r, blocks);
                        TestObjects.backup(unit, name, data, 2048, Codec.NONE, deduplicated);
                        backups.increment();
                        committed.put(name, data);
                        if (i >= 2) { // delete an older object: its chunks become garbage unless shared or pinned
                            String victim = "w" + thread + "/" + (i - 2);
                            assertEquals(1, unit.deleteObjects(victim));
                            deletes.increment();
                            committed.remove(victim);
                        }
                    }
                    return null;
                }));
            }
            Future<Integer> collector = pool.submit(() -> {
                int runs = 0;
                while (!stop.get()) {
                    GcReport r = unit.collectGarbage();
                    chunksCollected.add(r.chunksRemoved());
                    bytesReclaimed.add(r.bytesReclaimed());
                    runs++;
                }
                return runs;
            });
            Future<Integer> reader = pool.submit(() -> {
                int restores = 0;
                while (!stop.get()) {
                    assertArrayEquals(stable, TestObjects.restore(unit, "stable"));
                    restores++;
                }
                return restores;
            });
            for (Future<?> f : writers) {
                f.get();
            }
            stop.set(true);
            int gcRuns = collector.get();
            int restoresDuring = reader.get();
            assertTrue(gcRuns > 0);
            assertTrue(restoresDuring > 0);
            pool.shutdown();
            unit.collectGarbage();
            long bytesVerified = (long) restoresDuring * stable.length;
            for (Map.Entry<String, byte[]> e : committed.entrySet()) {
                assertArrayEquals(e.getValue(), TestObjects.restore(unit, e.getKey()), e.getKey());
                bytesVerified += e.getValue().length;
            }
            assertEquals(committed.size() + 1, unit.list("").size());
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());
            assertFalse(unit.stats().chunks() > 64, "garbage was collected: " + unit.stats());
            assertTrue(chunksCollected.sum() > 0, "the collector never collected while backups ran: nothing was raced");
            // Any failed restore has thrown above; reaching this line means there were none.
            System.out.printf("gc under load (" + backend + "): %d backups (%d chunks deduplicated against stored ones), %d deletes, %d gc runs"
                    + " (%d chunks, %d bytes reclaimed while backups ran), %d restores during and %d after, %d bytes verified,"
                    + " verify ok, restore failures: 0%n", backups.sum() + 1, deduplicated.sum(), deletes.sum(), gcRuns,
                    chunksCollected.sum(), bytesReclaimed.sum(), restoresDuring, committed.size(), bytesVerified);
        }
    }

    private static byte[] objectData(Random r, byte[][] blocks) {
        byte[] out = new byte[8 * 2048];
        for (int i = 0; i < 8; i++) {
            System.arraycopy(blocks[r.nextInt(blocks.length)], 0, out, i * 2048, 2048);
        }
        return out;
    }
}
