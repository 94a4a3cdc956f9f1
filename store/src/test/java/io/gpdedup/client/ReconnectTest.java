package io.gpdedup.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.store.net.StoreFixture;
import io.gpdedup.tooling.TcpRelay;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A client that loses its connection (a fault-injecting relay in front of a real server cuts it,
 * or the server's idle timeout) carries on: backup sessions on a new lease, reads sent again;
 * one whose store stays away fails after the reconnect timeout.
 */
@Timeout(180)
class ReconnectTest {
    private static final String NAME = "db/backups/20261123/20261123045500/gpbackup_0_20261123045500_16384";
    private static final int BATCHES = 8;

    @TempDir
    Path dir;

    private static ClientSettings via(TcpRelay relay, StoreFixture store, Duration reconnect) {
        ClientSettings a = store.settingsA();
        return new ClientSettings("127.0.0.1", relay.port(), a.unit(), a.user(), a.password(), a.connectTimeout(), a.readTimeout())
                .withReconnectTimeout(reconnect);
    }

    /** Batch {@code i} of {@code data}: the fingerprints, and the uploads of those the store says it lacks. */
    private static CompletableFuture<Void> storeBatch(BackupSession s, TestData data, int i) {
        return data.storeBatch(s, i, BATCHES);
    }

    private static byte[] readBack(StoreClient client, String name) {
        Fingerprint[] fps = client.recipe(name).orElseThrow().chunks().stream().map(r -> r.fingerprint()).toArray(Fingerprint[]::new);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (StoredChunk c : client.chunks(fps).join()) {
            out.writeBytes(TestData.decode(c));
        }
        return out.toByteArray();
    }

    @Test
    void aBackupSessionCarriesOnOnANewLeaseAfterTheNetworkWasCut() throws Exception {
        TestData data = TestData.random(7, 2_000_000, 16_384, Codec.NONE);
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"));
             TcpRelay relay = TcpRelay.start(new InetSocketAddress("127.0.0.1", store.port()));
             StoreClient client = StoreClient.connect(via(relay, store, Duration.ofSeconds(60)))) {
            BackupSession s = client.beginBackup();
            long firstLease = s.leaseId();
            for (int i = 0; i < BATCHES / 2; i++) {
                storeBatch(s, data, i).join();
            }
            assertTrue(relay.cut(Duration.ofSeconds(2)) >= 2, "the relay carried the connection");
            List<CompletableFuture<Void>> rest = new ArrayList<>();
            for (int i = BATCHES / 2; i < BATCHES; i++) {
                rest.add(storeBatch(s, data, i));
            }
            CompletableFuture.allOf(rest.toArray(new CompletableFuture<?>[0])).join();
            s.commit(NAME, data.recipe).join();
            assertNotEquals(firstLease, s.leaseId(), "the session went on with a new lease");
            assertArrayEquals(data.bytes, readBack(client, NAME));
        }
    }

    @Test
    void aCommitWhoseAnswerWasLostIsNotMadeTwiceAndReadsAreSentAgain() throws Exception {
        TestData data = TestData.random(8, 600_000, 16_384, Codec.NONE);
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"));
             TcpRelay relay = TcpRelay.start(new InetSocketAddress("127.0.0.1", store.port()));
             StoreClient client = StoreClient.connect(via(relay, store, Duration.ofSeconds(60)))) {
            BackupSession s = client.beginBackup();
            for (int i = 0; i < BATCHES; i++) {
                storeBatch(s, data, i).join();
            }
            CompletableFuture<Void> commit = s.commit(NAME, data.recipe);
            relay.cut(Duration.ofSeconds(1));
            commit.join();
            relay.cut(Duration.ofSeconds(1));
            assertArrayEquals(data.bytes, readBack(client, NAME));
            assertEquals(1, client.list("db/").size());
        }
    }

    @Test
    void aCallerPausingLongerThanTheIdleTimeoutKeepsItsConnectionAndLease() throws Exception {
        TestData data = TestData.random(9, 400_000, 16_384, Codec.NONE);
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"), c -> c.withIdleTimeout(Duration.ofSeconds(1)), e -> e);
             StoreClient client = StoreClient.connect(store.settingsA())) {
            client.keepAlive(true);
            assertEquals(Duration.ofMillis(250), client.keepAliveInterval(), "a quarter of the idle timeout the server announced");
            BackupSession s = client.beginBackup();
            long lease = s.leaseId();
            storeBatch(s, data, 0).join();
            TimeUnit.SECONDS.sleep(3);
            for (int i = 1; i < BATCHES; i++) {
                storeBatch(s, data, i).join();
            }
            s.commit(NAME, data.recipe).join();
            assertEquals(lease, s.leaseId(), "no reconnect was needed: the same lease throughout");
            assertArrayEquals(data.bytes, readBack(client, NAME));
        }
    }

    @Test
    void withoutTheKeepAliveAndReconnectingAPauseLosesTheLease() throws Exception {
        TestData data = TestData.random(10, 100_000, 16_384, Codec.NONE);
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"), c -> c.withIdleTimeout(Duration.ofSeconds(1)), e -> e);
             StoreClient client = StoreClient.connect(store.settingsA())) {
            BackupSession s = client.beginBackup();
            storeBatch(s, data, 0).join();
            TimeUnit.SECONDS.sleep(3);
            CompletionException e = assertThrows(CompletionException.class, () -> storeBatch(s, data, 1).join());
            assertInstanceOf(StoreConnectionLostException.class, e.getCause());
        }
    }

    @Test
    void aStoreThatStaysAwayFailsTheSessionAfterTheReconnectTimeout() throws Exception {
        TestData data = TestData.random(11, 200_000, 16_384, Codec.NONE);
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"));
             TcpRelay relay = TcpRelay.start(new InetSocketAddress("127.0.0.1", store.port()));
             StoreClient client = StoreClient.connect(via(relay, store, Duration.ofSeconds(2)))) {
            BackupSession s = client.beginBackup();
            storeBatch(s, data, 0).join();
            relay.cut(Duration.ofMinutes(5));
            CompletionException e = assertThrows(CompletionException.class,
                    () -> storeBatch(s, data, 1).orTimeout(120, TimeUnit.SECONDS).join());
            assertInstanceOf(StoreConnectionLostException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("no new connection within"), e.getCause().getMessage());
            // The session and the client stay failed: a later request does not wait again.
            CompletionException again = assertThrows(CompletionException.class, () -> storeBatch(s, data, 2).join());
            assertEquals(e.getCause().getMessage(), again.getCause().getMessage());
        }
    }

    @Test
    void aNewLeaseThatFindsTheStoredChunksGoneFailsTheBackupNamingThem() throws Exception {
        TestData data = TestData.random(14, 400_000, 16_384, Codec.NONE);
        Duration down = Duration.ofSeconds(10);
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"), c -> c.withReconnectGrace(Duration.ofSeconds(1)), e -> e);
             TcpRelay relay = TcpRelay.start(new InetSocketAddress("127.0.0.1", store.port()));
             StoreClient client = StoreClient.connect(via(relay, store, Duration.ofSeconds(60)))) {
            BackupSession s = client.beginBackup();
            storeBatch(s, data, 0).join();
            storeBatch(s, data, 1).join();
            long cut = System.nanoTime();
            relay.cut(down);
            // While the relay is down the lost lease is aborted after its grace and its chunks collected.
            long removed = 0;
            try (StoreClient admin = store.connectA()) {
                while (removed == 0) {
                    assertTrue(System.nanoTime() - cut < down.toNanos() / 2, "the lost lease's chunks were not collected while the relay was down");
                    TimeUnit.MILLISECONDS.sleep(200);
                    removed = admin.gc().chunksRemoved();
                }
            }
            CompletionException e = assertThrows(CompletionException.class, () -> storeBatch(s, data, 2).orTimeout(120, TimeUnit.SECONDS).join());
            assertInstanceOf(StoreClientException.class, e.getCause());
            int stored = 2 * ((data.uploads.size() + BATCHES - 1) / BATCHES);
            assertTrue(e.getCause().getMessage().contains("no longer holds " + stored + " chunks (" + data.uploads.get(0).fingerprint() + ", ...)"),
                    e.getCause().getMessage());
        }
    }

    @Test
    void aNewLeaseAsksAboutTheStoredBatchesInGroupsOfWholeBatches() {
        List<byte[]> batches = List.of(new byte[3 * Fingerprint.LENGTH], new byte[3 * Fingerprint.LENGTH], new byte[3 * Fingerprint.LENGTH],
                new byte[10 * Fingerprint.LENGTH], new byte[Fingerprint.LENGTH]);
        assertEquals(2, BackupSession.groupEnd(batches, 0, 6));
        assertEquals(3, BackupSession.groupEnd(batches, 2, 6), "a group stops before a batch that would take it past the limit");
        assertEquals(4, BackupSession.groupEnd(batches, 3, 6), "a batch larger than a group is a group of its own");
        assertEquals(5, BackupSession.groupEnd(batches, 4, 6));
        assertEquals(5, BackupSession.groupEnd(batches, 0, 100));
    }

    @Test
    void aLostConnectionsLeaseKeepsItsChunksFromCollectionDuringTheGrace() throws Exception {
        TestData data = TestData.random(12, 200_000, 16_384, Codec.NONE);
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"), c -> c.withReconnectGrace(Duration.ofMinutes(10)), e -> e)) {
            try (StoreClient lost = store.connectA()) {
                BackupSession s = lost.beginBackup();
                s.put(data.uploads).join();
            }
            try (StoreClient admin = store.connectA()) {
                GcReport gc = admin.gc();
                assertEquals(data.uploads.size(), gc.chunksBefore(), gc.toString());
                assertEquals(0, gc.chunksRemoved(), "the lease of the lost connection still pins its chunks: " + gc);
            }
        }
    }

    @Test
    void aLostConnectionsLeaseIsAbortedOnceTheGraceHasPassed() throws Exception {
        TestData data = TestData.random(13, 200_000, 16_384, Codec.NONE);
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"), c -> c.withReconnectGrace(Duration.ofSeconds(1)), e -> e)) {
            try (StoreClient lost = store.connectA()) {
                lost.beginBackup().put(data.uploads).join();
            }
            try (StoreClient admin = store.connectA()) {
                long removed = 0;
                for (int i = 0; i < 120 && removed == 0; i++) {
                    TimeUnit.MILLISECONDS.sleep(500);
                    removed = admin.gc().chunksRemoved();
                }
                assertEquals(data.uploads.size(), removed, "the abandoned chunks are collected after the grace");
                assertEquals(List.of(), admin.list(""));
            }
        }
    }
}
