package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.s3.Bucket;
import io.gpdedup.store.s3.LeaseHeldException;
import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.testsupport.FaultProxy;
import io.gpdedup.testsupport.S3Server;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine on the S3 backend against a real S3 server (S3Proxy): durability without the local
 * disk, grouped uploads, a start from checkpoints, leases between stores, and S3 faults injected
 * by a proxy between the store and the server.
 */
@Timeout(600)
class S3EngineTest {
    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(64 << 10);

    @TempDir
    Path dir;

    private DedupStoreEngine open(S3Settings s3, String dataDir) {
        Path data = dir.resolve(dataDir);
        return DedupStoreEngine.open(data, SMALL, S3Backend.factory(s3.withCacheDir(dir.resolve(dataDir + "-cache"))));
    }

    private static Map<String, Long> requests(DedupStoreEngine engine) {
        return ((S3Backend) engine.backend()).requests().snapshot();
    }

    @Test
    void everyAcknowledgedBackupIsServedByAnotherStoreWithAnEmptyCache() throws Exception {
        S3Settings s3 = io.gpdedup.store.s3.TestBuckets.fresh("lost-cache", dir);
        byte[][] objects = new byte[6][];
        try (DedupStoreEngine a = open(s3, "a")) {
            StorageUnit unit = a.unit("u1");
            for (int i = 0; i < objects.length; i++) {
                objects[i] = TestObjects.data(i, 10_000 + i * 50_000, i % 2 == 0);
                TestObjects.backup(unit, "db/obj" + i, objects[i], 4096, i % 2 == 0 ? Codec.ZSTD : Codec.NONE);
            }
            assertTrue(unit.stats().containers() > 1, unit.stats().toString());
        }
        try (Stream<Path> spool = Files.walk(dir.resolve("a-cache"))) {
            assertEquals(0, spool.filter(Files::isRegularFile).count(), "nothing stays in the cache directory after a clean stop");
        }
        try (DedupStoreEngine b = open(s3, "b")) {
            StorageUnit unit = b.unit("u1");
            assertEquals(objects.length, unit.list("db/").size());
            for (int i = 0; i < objects.length; i++) {
                assertArrayEquals(objects[i], TestObjects.restore(unit, "db/obj" + i));
            }
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());
        }
    }

    @Test
    void concurrentSmallCommitsShareOneUpload() throws Exception {
        S3Settings s3 = io.gpdedup.store.s3.TestBuckets.fresh("group", dir);
        try (DedupStoreEngine engine = open(s3, "a")) {
            DedupStorageUnit unit = (DedupStorageUnit) engine.unit("u1");
            List<BackupLease> leases = new ArrayList<>();
            List<Recipe> recipes = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                BackupLease lease = unit.beginBackup();
                leases.add(lease);
                recipes.add(TestObjects.upload(lease, TestObjects.data(i, 1000, false), 4096, Codec.NONE));
            }
            long putsBefore = requests(engine).getOrDefault("PutObject", 0L);
            List<CompletableFuture<Void>> commits = new ArrayList<>();
            synchronized (unit.containers()) { // the syncer seals and uploads under this monitor: hold it until all 40 wait
                for (int i = 0; i < 40; i++) {
                    commits.add(leases.get(i).commit("small/" + i, recipes.get(i)));
                }
            }
            commits.forEach(CompletableFuture::join);
            leases.forEach(BackupLease::close);
            long puts = requests(engine).getOrDefault("PutObject", 0L) - putsBefore;
            // 40 recipes, and the 40 KB of chunks in one container with its index object (two at most, if the syncer
            // took a first commit before the others were queued)
            assertTrue(puts <= 40 + 4, "PUTs for 40 small commits: " + puts);
            assertTrue(unit.stats().containers() <= 2, unit.stats().toString());
            for (int i = 0; i < 40; i++) {
                assertArrayEquals(TestObjects.data(i, 1000, false), TestObjects.restore(unit, "small/" + i));
            }
        }
    }

    /** A stream's SYNC after every batch must not seal a container per batch: on a bucket that is a PUT and a GET per batch. */
    @Test
    void syncsBetweenBatchesUploadNothingAndTheCommitUploadsOneContainer() throws Exception {
        S3Settings s3 = io.gpdedup.store.s3.TestBuckets.fresh("syncs", dir);
        byte[] data = TestObjects.data(500, 400_000, false);
        int part = 20_480;
        try (DedupStoreEngine engine = open(s3, "a")) {
            DedupStorageUnit unit = (DedupStorageUnit) engine.unit("u1");
            try (BackupLease lease = unit.beginBackup()) {
                List<ChunkRef> refs = new ArrayList<>();
                for (int off = 0; off < data.length; off += part) {
                    byte[] batch = Arrays.copyOfRange(data, off, Math.min(data.length, off + part));
                    refs.addAll(TestObjects.upload(lease, batch, 4096, Codec.NONE).chunks());
                    unit.sync().join();
                }
                lease.commit("synced", new Recipe(refs, data.length, TestObjects.sha256(data))).join();
            }
            // Only full containers roll over (64 KiB here): seven for 400 KB. A seal per SYNC made twenty. (The
            // lease's renewals PUT too, so containers are counted, not PUTs.)
            long full = (data.length + (64 << 10) - 1) / (64 << 10);
            assertTrue(unit.stats().containers() <= full + 1, unit.stats().toString());
            assertArrayEquals(data, TestObjects.restore(unit, "synced"));
        }
    }

    /**
     * The upload's Content-MD5 is that of the bytes appended, not of the file as read at upload
     * time: a spool file changed on disk in between (a bit flip on the cache disk) is refused by the
     * server, and the commit fails with nothing of the backup visible.
     */
    @Test
    void aSpoolFileChangedBeforeItsUploadFailsTheCommitAndLeavesNothing() throws Exception {
        S3Settings s3 = io.gpdedup.store.s3.TestBuckets.fresh("bit-flip", dir);
        byte[] data = TestObjects.data(77, 30_000, false);
        try (DedupStoreEngine a = open(s3, "a")) {
            StorageUnit unit = a.unit("u1");
            try (BackupLease lease = unit.beginBackup()) {
                Recipe recipe = TestObjects.upload(lease, data, 4096, Codec.NONE);
                Path spooled;
                try (Stream<Path> files = Files.walk(dir.resolve("a-cache"))) {
                    spooled = files.filter(f -> f.getFileName().toString().endsWith(".ctr")).findFirst().orElseThrow();
                }
                try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(spooled,
                        java.nio.file.StandardOpenOption.READ, java.nio.file.StandardOpenOption.WRITE)) {
                    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(1);
                    ch.read(b, 1000);
                    b.put(0, (byte) (b.get(0) ^ 0x10)).rewind();
                    ch.write(b, 1000);
                }
                CompletionException e = assertThrows(CompletionException.class, () -> lease.commit("flipped", recipe).join());
                String msg = e.getCause().getMessage();
                assertTrue(msg.contains("not matching its MD5") && msg.contains("check the cache disk"), msg);
                assertFalse(msg.contains("Exception"), msg);
            }
            assertTrue(unit.list("").isEmpty(), "nothing of the failed backup is visible");
        }
        try (DedupStoreEngine b = open(s3, "b")) {
            StorageUnit unit = b.unit("u1");
            assertTrue(unit.list("").isEmpty());
            assertEquals(0, unit.stats().containers(), "no container reached the bucket: " + unit.stats());
            TestObjects.backup(unit, "again", data, 4096, Codec.NONE);
            assertArrayEquals(data, TestObjects.restore(unit, "again"));
        }
    }

    @Test
    void aStartReadsCheckpointsAndIndexObjectsNeverWholeContainers() throws Exception {
        S3Settings s3 = io.gpdedup.store.s3.TestBuckets.fresh("start", dir);
        byte[] data = TestObjects.data(7, 600_000, false);
        int containers;
        try (DedupStoreEngine a = open(s3, "a")) {
            TestObjects.backup(a.unit("u1"), "big", data, 2048, Codec.NONE);
            containers = (int) a.unit("u1").stats().containers();
            assertTrue(containers >= 9, "containers: " + containers);
        }
        try (DedupStoreEngine b = open(s3, "a")) {
            StorageUnit unit = b.unit("u1");
            Map<String, Long> r = requests(b);
            // the lease (read, and read back), the keys object (none: a plaintext unit), the first container's head (which
            // tells a sealed unit that lost its keys object), the index checkpoint, the catalog checkpoint; the rest are listings
            assertTrue(r.getOrDefault("GetObject", 0L) <= 6, "a start from checkpoints: " + r);
            assertArrayEquals(data, TestObjects.restore(unit, "big"));
        }
        try (Bucket bucket = Bucket.open(s3)) {
            bucket.delete("units/u1/index.snap");
        }
        try (DedupStoreEngine c = open(s3, "a")) {
            StorageUnit unit = c.unit("u1");
            Map<String, Long> r = requests(c);
            // every index object instead of the checkpoint, never a container
            assertTrue(r.getOrDefault("GetObject", 0L) <= 6 + containers, "a start without the index checkpoint: " + r);
            assertEquals(293, unit.stats().chunks());
            assertArrayEquals(data, TestObjects.restore(unit, "big"));
        }
    }

    @Test
    void aSecondStoreIsRefusedAUnitWhileAnotherHoldsItsLease() throws Exception {
        S3Settings s3 = io.gpdedup.store.s3.TestBuckets.fresh("lease", dir);
        byte[] data = TestObjects.data(3, 50_000, false);
        try (DedupStoreEngine a = open(s3, "a"); DedupStoreEngine b = open(s3, "b")) {
            TestObjects.backup(a.unit("u1"), "x", data, 4096, Codec.NONE);
            LeaseHeldException e = assertThrows(LeaseHeldException.class, () -> b.unit("u1"));
            assertTrue(e.getMessage().startsWith("storage unit u1 is served by the store on host "), e.getMessage());
            assertTrue(e.getMessage().contains("pid " + ProcessHandle.current().pid()), e.getMessage());
            TestObjects.backup(b.unit("u2"), "y", data, 4096, Codec.NONE); // other units of the bucket are free
            assertThrows(LeaseHeldException.class, () -> a.unit("u2"));
        }
        try (DedupStoreEngine b = open(s3, "b")) { // a's clean stop gave u1 back
            assertArrayEquals(data, TestObjects.restore(b.unit("u1"), "x"));
            assertArrayEquals(data, TestObjects.restore(b.unit("u2"), "y"));
        }
    }

    @Test
    void faultsAreRiddenOutAndABackupThatCannotCompleteLeavesNothing() throws Exception {
        S3Settings direct = io.gpdedup.store.s3.TestBuckets.fresh("faults", dir);
        try (FaultProxy proxy = FaultProxy.start(S3Server.shared().port())) {
            S3Settings s3 = direct.withEndpoint(URI.create(proxy.endpoint())).withRequestTimeoutSeconds(3);
            try (DedupStoreEngine engine = open(s3, "a")) {
                StorageUnit unit = engine.unit("u1");
                proxy.plan(new FaultProxy.Plan(11, 0.25, Set.of(FaultProxy.Fault.values()), false, 60, 500, 5000));
                List<byte[]> objects = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    objects.add(TestObjects.data(100 + i, 150_000, false));
                    TestObjects.backup(unit, "ok/" + i, objects.get(i), 4096, Codec.NONE);
                }
                for (int i = 0; i < 8; i++) {
                    assertArrayEquals(objects.get(i), TestObjects.restore(unit, "ok/" + i));
                }
                assertTrue(proxy.injectedTotal() > 10, "faults injected: " + proxy.injected());
                proxy.plan(FaultProxy.Plan.none());

                proxy.refuseWrites(true);
                byte[] doomed = TestObjects.data(999, 200_000, false);
                CompletionException e = assertThrows(CompletionException.class,
                        () -> TestObjects.backup(unit, "failed/x", doomed, 4096, Codec.NONE));
                assertTrue(e.getCause().getMessage().contains("503 SlowDown"), e.getCause().getMessage());
                assertTrue(unit.list("failed/").isEmpty(), "nothing of a failed backup is visible");
                for (int i = 0; i < 8; i++) { // restores go on while every write fails
                    assertArrayEquals(objects.get(i), TestObjects.restore(unit, "ok/" + i));
                }
                proxy.refuseWrites(false);
                TestObjects.backup(unit, "after/x", doomed, 4096, Codec.NONE);
                assertArrayEquals(doomed, TestObjects.restore(unit, "after/x"));
            }
            try (DedupStoreEngine again = open(direct, "b")) {
                StorageUnit unit = again.unit("u1");
                assertEquals(List.of("after/x", "ok/0", "ok/1", "ok/2", "ok/3", "ok/4", "ok/5", "ok/6", "ok/7"),
                        unit.list("").stream().map(ObjectInfo::name).toList());
                VerifyReport v = unit.verify();
                assertTrue(v.ok(), v.toString());
                assertFalse(unit.recipe("failed/x").isPresent());
            }
        }
    }
}
