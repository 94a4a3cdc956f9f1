package io.gpdedup.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.store.net.StoreFixture;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The client against a real server and DedupStoreEngine over loopback. */
class StoreClientTest {
    private static final String DIR = "db1/backups/20261123/20261123045500/";

    @TempDir
    Path dir;
    private StoreFixture store;

    @BeforeEach
    void start() {
        store = StoreFixture.start(dir);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void backupAndRestoreRoundTrip(Codec codec) {
        TestData data = TestData.random(codec.id() + 1, 300_000, 16_384, codec);
        String name = DIR + "gpbackup_0_20261123045500_" + codec;
        try (StoreClient client = store.connectA()) {
            assertEquals(ProtocolVersions.V7, client.protocolVersion());
            try (BackupSession backup = client.beginBackup()) {
                boolean[] missing = backup.missing(data.fingerprints()).join();
                assertEquals(data.uploads.size(), missing.length);
                for (boolean m : missing) {
                    assertTrue(m, "an empty store lacks every chunk");
                }
                backup.put(data.only(missing)).join();
                backup.commit(name, data.recipe).join();
            }
            Recipe recipe = client.recipe(name).orElseThrow();
            assertEquals(data.recipe.chunks(), recipe.chunks());
            assertEquals(data.recipe.totalLength(), recipe.totalLength());
            assertArrayEquals(data.recipe.streamSha256(), recipe.streamSha256());
            assertArrayEquals(data.recipe.chunkListSha256(), recipe.chunkListSha256());
            assertTrue(recipe.chunkListMatches());
            assertArrayEquals(data.bytes, TestData.restore(client, name));

            List<ObjectInfo> listed = client.list(DIR);
            assertEquals(1, listed.size());
            assertEquals(name, listed.get(0).name());
            assertEquals(data.bytes.length, listed.get(0).length());
            assertTrue(listed.get(0).committedAtMillis() > 0);
            assertEquals(List.of(), client.list("db2/"));

            // The same data again: nothing is missing, nothing is stored twice.
            UnitStats before = client.stats();
            try (BackupSession again = client.beginBackup()) {
                boolean[] missing = again.missing(data.fingerprints()).join();
                for (boolean m : missing) {
                    assertFalse(m);
                }
                again.commit(name + ".copy", data.recipe).join();
            }
            UnitStats after = client.stats();
            assertEquals(before.chunks(), after.chunks());
            assertEquals(before.physicalBytes(), after.physicalBytes());
            assertEquals(2 * data.bytes.length, after.logicalBytes());
            assertEquals(2, after.objects());

            // An exact delete leaves the object whose name merely starts with the same text.
            assertTrue(client.deleteObject(name));
            assertFalse(client.deleteObject(name));
            assertEquals(Optional.empty(), client.recipe(name));
            assertTrue(client.recipe(name + ".copy").isPresent());
            try (BackupSession third = client.beginBackup()) {
                third.missing(data.fingerprints()).join();
                third.commit(name, data.recipe).join();
            }

            assertEquals(2, client.deleteObjects(DIR));
            assertEquals(Optional.empty(), client.recipe(name));
            assertEquals(List.of(), client.list(""));
            assertTrue(client.verify().ok());
            assertEquals(data.uploads.size(), client.gc().chunksBefore());
        }
    }

    @Test
    void manyRequestsInFlightFromManyThreads() throws Exception {
        int threads = 4;
        int objectsPerThread = 6;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try (StoreClient client = store.connectA()) {
            // 300 pings in flight at once, answered while the backups below run.
            List<CompletableFuture<Void>> pings = new ArrayList<>();
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                workers.add(pool.submit(() -> {
                    for (int o = 0; o < objectsPerThread; o++) {
                        TestData data = TestData.random(100 * thread + o, 64 * 1024 + o, 4096, Codec.NONE);
                        BackupSession s = client.beginBackup();
                        // No waiting between the steps: missing, put of everything, commit, all pipelined.
                        CompletableFuture<boolean[]> missing = s.missing(data.fingerprints());
                        CompletableFuture<Void> put = s.put(data.uploads);
                        CompletableFuture<Void> commit = s.commit("t" + thread + "/o" + o, data.recipe);
                        assertEquals(data.uploads.size(), missing.join().length);
                        put.join();
                        commit.join();
                    }
                    return null;
                }));
            }
            for (int i = 0; i < 300; i++) {
                pings.add(CompletableFuture.runAsync(client::ping, pool));
            }
            for (Future<?> w : workers) {
                w.get();
            }
            CompletableFuture.allOf(pings.toArray(new CompletableFuture<?>[0])).join();
            assertEquals(threads * objectsPerThread, client.list("t").size());
            for (int t = 0; t < threads; t++) {
                for (int o = 0; o < objectsPerThread; o++) {
                    TestData data = TestData.random(100 * t + o, 64 * 1024 + o, 4096, Codec.NONE);
                    assertArrayEquals(data.bytes, TestData.restore(client, "t" + t + "/o" + o));
                }
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void hundredsOfLookupsInFlightOnOneSession() {
        TestData data = TestData.random(7, 512 * 1024, 1024, Codec.NONE);
        try (StoreClient client = store.connectA(); BackupSession s = client.beginBackup()) {
            List<CompletableFuture<boolean[]>> answers = new ArrayList<>();
            Fingerprint[] fps = data.fingerprints();
            for (int i = 0; i < fps.length; i++) {
                answers.add(s.missing(new Fingerprint[] {fps[i]}));
                if (i % 2 == 0) {
                    s.put(List.of(data.uploads.get(i)));
                }
            }
            // Ordered per lease: the lookup of chunk i ran before its put, so every answer is "missing".
            for (CompletableFuture<boolean[]> a : answers) {
                assertArrayEquals(new boolean[] {true}, a.join());
            }
            boolean[] now = s.missing(fps).join();
            for (int i = 0; i < fps.length; i++) {
                assertEquals(i % 2 != 0, now[i], "chunk " + i);
            }
        }
    }

    @Test
    void everythingLargerThanAFrameIsSplit(@TempDir Path other) {
        store.close();
        // 64 KiB frames and 16 entries per batch: puts, recipes, chunk replies and listings all need several frames.
        store = StoreFixture.start(other, c -> c.withLimits(64 * 1024, 16), e -> e);
        TestData data = TestData.random(11, 3000 * 100, 100, Codec.NONE);
        String longPrefix = "x".repeat(900) + "/";
        try (StoreClient client = store.connectA()) {
            assertEquals(64 * 1024, client.maxFrameLength());
            assertEquals(16, client.maxBatch());
            try (BackupSession s = client.beginBackup()) {
                boolean[] missing = s.missing(data.fingerprints()).join();
                assertEquals(3000, missing.length);
                s.put(data.only(missing));
                s.commit(longPrefix + "big", data.recipe).join();
            }
            assertEquals(data.recipe.chunks(), client.recipe(longPrefix + "big").orElseThrow().chunks());
            assertArrayEquals(data.bytes, TestData.restore(client, longPrefix + "big"));
            for (int i = 0; i < 80; i++) {
                try (BackupSession s = client.beginBackup()) {
                    s.commit(longPrefix + "empty" + i, new Recipe(List.of(), 0, Fingerprint.newDigest().digest())).join();
                }
            }
            assertEquals(81, client.list(longPrefix).size());
            TestData big = TestData.random(12, 70 * 1024, 70 * 1024, Codec.NONE);
            try (BackupSession s = client.beginBackup()) {
                assertThrows(IllegalArgumentException.class, () -> s.put(big.uploads), "one chunk larger than a frame");
            }
        }
    }

    @Test
    void aDroppedConnectionLeavesNothingVisible() {
        TestData data = TestData.random(3, 100_000, 10_000, Codec.NONE);
        StoreClient dropped = store.connectA();
        BackupSession s = dropped.beginBackup();
        s.put(data.uploads).join();
        dropped.close();
        try (StoreClient client = store.connectA()) {
            assertEquals(List.of(), client.list(""));
            assertEquals(0, client.stats().objects());
            CompletionException late = assertThrows(CompletionException.class, () -> s.commit("late", data.recipe).join());
            assertTrue(late.getCause() instanceof StoreClientException, "a session of a closed client: " + late.getCause());
        }
        try (StoreClient client = store.connectA()) {
            assertEquals(Optional.empty(), client.recipe("late"));
        }
    }

    @Test
    void aLeaseBelongsToItsConnection() {
        try (StoreClient a = store.connectA(); StoreClient b = store.connectA(); BackupSession s = a.beginBackup()) {
            BackupSession stolen = new BackupSession(b, new BackupSession.ConnectionLease(b.connection(), s.leaseId()));
            StoreServerException e = serverError(() -> stolen.missing(new Fingerprint[] {Fingerprint.parse("00".repeat(32))}).join());
            assertEquals(ErrorCode.BAD_REQUEST, e.code());
            assertTrue(e.getMessage().contains("no open lease"), e.getMessage());
        }
    }

    @Test
    void serverErrorsAreClearAndLeaveTheConnectionUsable() {
        TestData data = TestData.random(5, 50_000, 10_000, Codec.NONE);
        try (StoreClient client = store.connectA()) {
            BackupSession s = client.beginBackup();
            StoreServerException commit = serverError(() -> s.commit("no-chunks", data.recipe).join());
            assertEquals(ErrorCode.STORE_ERROR, commit.code());
            assertThrows(IllegalStateException.class, () -> s.put(data.uploads), "the session ended with its commit");

            StoreServerException delete = assertThrows(StoreServerException.class, () -> client.deleteObjects(""));
            assertEquals(ErrorCode.BAD_REQUEST, delete.code());

            BackupSession s3 = client.beginBackup();
            java.nio.ByteBuffer first = data.uploads.get(0).payload();
            byte[] wrong = new byte[first.remaining()];
            first.get(wrong);
            wrong[0] ^= 1;
            StoreServerException badPayload = serverError(() -> s3.put(List.of(new io.gpdedup.protocol.wire.ChunkUpload(
                    data.fingerprints()[0], Codec.NONE, wrong.length, wrong))).join());
            assertEquals(ErrorCode.STORE_ERROR, badPayload.code());

            StoreServerException unknownChunk = serverError(() -> client.chunks(data.fingerprints()).join());
            assertEquals(ErrorCode.STORE_ERROR, unknownChunk.code());
            assertTrue(unknownChunk.getMessage().contains(data.fingerprints()[0].toString()), unknownChunk.getMessage());

            client.ping();
            assertTrue(client.isOpen());
        }
    }

    @Test
    void connectionRefusedIsAConnectException() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        ClientSettings settings = ClientSettings.of("127.0.0.1", port, "u", "u", "p").withTimeouts(Duration.ofSeconds(2), Duration.ofSeconds(2));
        StoreConnectException e = assertThrows(StoreConnectException.class, () -> StoreClient.connect(settings));
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
    }

    @Test
    void aClosedClientFailsRequestsClearly() {
        StoreClient client = store.connectA();
        client.close();
        assertFalse(client.isOpen());
        StoreClientException e = assertThrows(StoreClientException.class, client::ping);
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
    }

    static StoreServerException serverError(Runnable r) {
        CompletionException e = assertThrows(CompletionException.class, r::run);
        assertTrue(e.getCause() instanceof StoreServerException, String.valueOf(e.getCause()));
        return (StoreServerException) e.getCause();
    }
}
