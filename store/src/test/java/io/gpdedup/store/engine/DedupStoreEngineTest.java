package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class DedupStoreEngineTest {
    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(256 << 10);

    @TempDir
    Path dir;

    @ParameterizedTest
    @EnumSource(Codec.class)
    void manyObjectsRoundTrip(Codec codec) {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            List<byte[]> originals = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                byte[] data = TestObjects.data(i, 1 + i * 997, i % 2 == 0);
                originals.add(data);
                TestObjects.backup(unit, name(i), data, 4096, codec);
            }
            for (int i = 0; i < 40; i++) {
                assertArrayEquals(originals.get(i), TestObjects.restore(unit, name(i)));
            }
            assertEquals(40, unit.list("").size());
            assertTrue(unit.stats().containers() > 1, "small containers roll over");
        }
    }

    private static String name(int i) {
        return "db/backups/20261123/20261123045500/gpbackup_0_20261123045500_" + (16384 + i);
    }

    @Test
    void emptyObjectAndEmptyChunk() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            TestObjects.backup(unit, "empty", new byte[0], 4096, Codec.ZSTD);
            assertArrayEquals(new byte[0], TestObjects.restore(unit, "empty"));
            assertEquals(0, unit.list("empty").get(0).length());
            for (Codec codec : Codec.values()) {
                try (BackupLease lease = unit.beginBackup()) {
                    byte[] none = new byte[0];
                    Fingerprint fp = Fingerprint.compute(none, 0, 0);
                    lease.put(fp, codec, 0, TestObjects.encode(codec, none));
                    lease.commit("zero-chunk-" + codec, new Recipe(List.of(new ChunkRef(fp, 0)), 0, TestObjects.sha256(none))).join();
                }
                assertArrayEquals(new byte[0], TestObjects.restore(unit, "zero-chunk-" + codec));
            }
            assertTrue(unit.verify().ok());
        }
    }

    @Test
    void sameChunkIsStoredOnce() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            byte[] data = TestObjects.data(7, 64 << 10, false);
            TestObjects.backup(unit, "a/one", data, 8192, Codec.NONE);
            UnitStats first = unit.stats();
            TestObjects.backup(unit, "a/two", data, 8192, Codec.NONE);
            UnitStats second = unit.stats();
            assertEquals(8, first.chunks());
            assertEquals(64 << 10, first.physicalBytes());
            assertEquals(first.chunks(), second.chunks());
            assertEquals(first.physicalBytes(), second.physicalBytes());
            assertEquals(2L * data.length, second.logicalBytes());
            assertEquals(2, second.objects());

            // put of a present chunk is accepted and not stored twice
            try (BackupLease lease = unit.beginBackup()) {
                byte[] c = java.util.Arrays.copyOf(data, 8192);
                lease.put(Fingerprint.compute(c, 0, c.length), Codec.NONE, c.length, c);
            }
            assertEquals(first.physicalBytes(), unit.stats().physicalBytes());
        }
    }

    @Test
    void eightThreadsCommitConcurrently() throws Exception {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            ExecutorService pool = Executors.newFixedThreadPool(8);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                futures.add(pool.submit(() -> {
                    for (int i = 0; i < 20; i++) {
                        // half the data is shared between threads, half is their own
                        byte[] data = TestObjects.data(i % 2 == 0 ? i : 1000 * thread + i, 20_000, false);
                        TestObjects.backup(unit, "t" + thread + "/obj" + i, data, 4096, Codec.ZSTD);
                    }
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
            pool.shutdown();
            assertEquals(160, unit.list("").size());
            for (int t = 0; t < 8; t++) {
                for (int i = 0; i < 20; i++) {
                    byte[] expected = TestObjects.data(i % 2 == 0 ? i : 1000 * t + i, 20_000, false);
                    assertArrayEquals(expected, TestObjects.restore(unit, "t" + t + "/obj" + i));
                }
            }
            assertTrue(unit.verify().ok());
        }
    }

    /**
     * While the syncer is held up, commits pile up; it must then make them all durable in one
     * batch (one round of fsyncs), and complete none before that.
     */
    @Test
    void concurrentCommitsAreSyncedAsOneBatch() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            DedupStorageUnit unit = (DedupStorageUnit) engine.unit("u1");
            List<BackupLease> leases = new ArrayList<>();
            List<Recipe> recipes = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                BackupLease lease = unit.beginBackup();
                leases.add(lease);
                recipes.add(TestObjects.upload(lease, TestObjects.data(i, 10_000, false), 4096, Codec.NONE));
            }
            long[] before = unit.commitCounters();
            List<java.util.concurrent.CompletableFuture<Void>> futures = new ArrayList<>();
            // the syncer takes the dirty-container set under this monitor: holding it stalls the syncer
            synchronized (unit.containers()) {
                for (int i = 0; i < 20; i++) {
                    futures.add(leases.get(i).commit("obj" + i, recipes.get(i)));
                }
                for (var f : futures) {
                    assertFalse(f.isDone(), "no commit completes before its chunks are fsynced");
                }
                assertTrue(unit.list("").isEmpty());
            }
            futures.forEach(java.util.concurrent.CompletableFuture::join);
            long[] after = unit.commitCounters();
            assertEquals(20, after[1] - before[1]);
            assertTrue(after[0] - before[0] <= 2, "20 commits took " + (after[0] - before[0]) + " batches");
            leases.forEach(BackupLease::close);
            for (int i = 0; i < 20; i++) {
                assertArrayEquals(TestObjects.data(i, 10_000, false), TestObjects.restore(unit, "obj" + i));
            }
        }
    }

    @Test
    void reopenKeepsEverything() {
        byte[] data = TestObjects.data(3, 100_000, true);
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            TestObjects.backup(engine.unit("u1"), "x/y/z", data, 4096, Codec.LZ4);
            TestObjects.backup(engine.unit("u2"), "other", data, 4096, Codec.NONE);
        }
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            assertEquals(java.util.Set.of("u1", "u2"), engine.unitNames());
            assertArrayEquals(data, TestObjects.restore(engine.unit("u1"), "x/y/z"));
            assertArrayEquals(data, TestObjects.restore(engine.unit("u2"), "other"));
            assertEquals(List.of("x/y/z"), engine.unit("u1").list("x/").stream().map(ObjectInfo::name).toList());
            assertTrue(engine.unit("u1").verify().ok());
        }
    }

    @Test
    void secondEngineOnSameDirectoryIsRefused() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            assertEquals(dir.toAbsolutePath(), engine.dataDirectory());
            StoreException e = assertThrows(StoreException.class, () -> DedupStoreEngine.open(dir, SMALL));
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
        }
    }

    @Test
    void hostileChunkIsRejectedAndNothingStored() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL.withVerifyOnPut(PutVerification.ALL))) {
            StorageUnit unit = engine.unit("u1");
            byte[] good = TestObjects.data(1, 5000, true);
            byte[] other = TestObjects.data(2, 5000, true);
            Fingerprint fp = Fingerprint.compute(good, 0, good.length);
            try (BackupLease lease = unit.beginBackup()) {
                assertThrows(StoreException.class, () -> lease.put(fp, Codec.NONE, other.length, other));
                assertThrows(StoreException.class, () -> lease.put(fp, Codec.ZSTD, good.length, TestObjects.encode(Codec.ZSTD, other)));
                assertThrows(StoreException.class, () -> lease.put(fp, Codec.LZ4, good.length + 1, TestObjects.encode(Codec.LZ4, good)));
                assertThrows(StoreException.class, () -> lease.put(fp, Codec.ZSTD, good.length, new byte[] {1, 2, 3}));
                assertThrows(StoreException.class, () -> lease.put(fp, Codec.LZ4, good.length, new byte[] {(byte) 0xff, 2, 3}));
                assertTrue(lease.missing(new Fingerprint[] {fp})[0]);
                assertEquals(0, unit.stats().chunks());
                lease.put(fp, Codec.LZ4, good.length, TestObjects.encode(Codec.LZ4, good));
                assertFalse(lease.missing(new Fingerprint[] {fp})[0]);
            }
        }
    }

    @Test
    void sampledVerificationChecksTheFirstAndEverySixteenthNewChunkAndVerifyFindsTheRest() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            assertEquals(PutVerification.SAMPLE, SMALL.verifyOnPut(), "the default");
            StorageUnit unit = engine.unit("u1");
            byte[] wrong = TestObjects.data(99, 3000, false);
            try (BackupLease lease = unit.beginBackup()) {
                for (int n = 0; n < 2 * PutVerification.SAMPLE_EVERY + 1; n++) {
                    byte[] good = TestObjects.data(1000 + n, 3000, false);
                    Fingerprint fp = Fingerprint.compute(good, 0, good.length);
                    byte[] lie = TestObjects.encode(Codec.ZSTD, wrong);
                    if (n % PutVerification.SAMPLE_EVERY == 0) {
                        assertThrows(StoreException.class, () -> lease.put(fp, Codec.ZSTD, good.length, lie), "chunk " + n);
                    } else if (n == 5) {
                        lease.put(fp, Codec.ZSTD, good.length, lie); // not sampled: taken on trust
                    } else {
                        lease.put(fp, Codec.ZSTD, good.length, TestObjects.encode(Codec.ZSTD, good));
                    }
                }
            }
            VerifyReport v = unit.verify();
            assertFalse(v.ok(), "verify re-hashes what the sample let through");
            assertTrue(v.toString().contains(Fingerprint.compute(TestObjects.data(1005, 3000, false), 0, 3000).toString()), v.toString());
        }
    }

    @Test
    void commitOfUnknownChunkFailsAndNothingBecomesVisible() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            byte[] raw = TestObjects.data(9, 1000, false);
            Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
            try (BackupLease lease = unit.beginBackup()) {
                Recipe r = new Recipe(List.of(new ChunkRef(fp, raw.length)), raw.length, TestObjects.sha256(raw));
                CompletionException e = assertThrows(CompletionException.class, () -> lease.commit("a/b", r).join());
                assertTrue(e.getCause() instanceof StoreException);
                assertTrue(e.getCause().getMessage().contains("neither stored nor pinned"), e.getCause().getMessage());
            }
            assertTrue(unit.list("").isEmpty());
            assertTrue(unit.recipe("a/b").isEmpty());
        }
    }

    @Test
    void abandonedLeaseLeavesNothingVisible() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            try (BackupLease lease = unit.beginBackup()) {
                TestObjects.upload(lease, TestObjects.data(1, 10_000, false), 4096, Codec.NONE);
            }
            assertTrue(unit.list("").isEmpty());
        }
    }

    @Test
    void badNamesAreRejected() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            byte[] data = TestObjects.data(1, 100, false);
            for (String bad : List.of("", "/a", "a/", "a//b", "a/./b", "../a", "a/..", "a\0b")) {
                try (BackupLease lease = unit.beginBackup()) {
                    Recipe r = TestObjects.upload(lease, data, 4096, Codec.NONE);
                    CompletionException e = assertThrows(CompletionException.class, () -> lease.commit(bad, r).join(), bad);
                    assertTrue(e.getCause() instanceof StoreException);
                }
            }
            assertTrue(unit.list("").isEmpty());
            assertThrows(StoreException.class, () -> engine.unit("../evil"));
            assertThrows(StoreException.class, () -> engine.unit(""));
        }
    }

    @Test
    void listIsSortedAndDeleteIsByPrefix() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            byte[] data = TestObjects.data(1, 1000, false);
            for (String n : List.of("b/2", "a/1", "b/1", "c", "b/10", "ä/x y")) {
                TestObjects.backup(unit, n, data, 4096, Codec.NONE);
            }
            assertEquals(List.of("a/1", "b/1", "b/10", "b/2", "c", "ä/x y"), unit.list("").stream().map(ObjectInfo::name).toList());
            assertEquals(List.of("b/1", "b/10", "b/2"), unit.list("b/").stream().map(ObjectInfo::name).toList());
            assertEquals(3, unit.deleteObjects("b/"));
            assertEquals(List.of("a/1", "c", "ä/x y"), unit.list("").stream().map(ObjectInfo::name).toList());
            assertTrue(unit.recipe("b/1").isEmpty());
            assertEquals(1000, unit.list("a/").get(0).length());
        }
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            assertEquals(List.of("a/1", "c", "ä/x y"), engine.unit("u1").list("").stream().map(ObjectInfo::name).toList());
        }
    }

    @Test
    void commitReplacesAnObjectOfTheSameName() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            TestObjects.backup(unit, "same", TestObjects.data(1, 5000, false), 4096, Codec.NONE);
            byte[] second = TestObjects.data(2, 7000, false);
            TestObjects.backup(unit, "same", second, 4096, Codec.NONE);
            assertArrayEquals(second, TestObjects.restore(unit, "same"));
            assertEquals(1, unit.list("").size());
            assertEquals(7000, unit.list("").get(0).length());
        }
    }

    @Test
    void capacityLimitFailsCleanlyAndReadsKeepWorking() {
        EngineSettings limited = SMALL.withCapacityBytes(100_000);
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, limited)) {
            StorageUnit unit = engine.unit("u1");
            byte[] first = TestObjects.data(1, 60_000, false);
            TestObjects.backup(unit, "first", first, 4096, Codec.NONE);
            StoreException e = assertThrows(StoreException.class,
                    () -> TestObjects.backup(unit, "second", TestObjects.data(2, 60_000, false), 4096, Codec.NONE));
            assertTrue(e.getMessage().contains("storage unit u1 is full"), e.getMessage());
            assertTrue(unit.recipe("second").isEmpty());
            assertArrayEquals(first, TestObjects.restore(unit, "first"));
            assertTrue(unit.verify().ok());
            // deduplicated data still fits
            TestObjects.backup(unit, "first-again", first, 4096, Codec.NONE);
            assertArrayEquals(first, TestObjects.restore(unit, "first-again"));
        }
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, limited)) {
            assertArrayEquals(TestObjects.data(1, 60_000, false), TestObjects.restore(engine.unit("u1"), "first"));
            assertTrue(engine.unit("u1").verify().ok());
        }
    }
}
