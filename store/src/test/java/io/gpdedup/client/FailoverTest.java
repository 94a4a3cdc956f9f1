package io.gpdedup.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.store.net.StoreFixture;
import io.gpdedup.tooling.TcpRelay;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
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
 * A client given several store addresses connects to whichever serves the unit: past a port nothing
 * listens on, past a standby that answers NOT_SERVED, and, when the store it works with goes away
 * mid-backup, on to the other address, where the backup carries on. A refused login is not passed over.
 */
@Timeout(180)
class FailoverTest {
    private static final String NAME = "db/backups/20261128045500/gpbackup_0_20261128045500_16384";
    private static final int BATCHES = 8;
    private static final Duration GONE = Duration.ofMinutes(10);

    @TempDir
    Path dir;

    private static StoreAddress local(int port) {
        return new StoreAddress("127.0.0.1", port);
    }

    private static ClientSettings settings(StoreFixture store, Duration reconnect, int... ports) {
        ClientSettings a = store.settingsA();
        List<StoreAddress> addresses = new ArrayList<>();
        for (int p : ports) {
            addresses.add(local(p));
        }
        return new ClientSettings(addresses, a.unit(), a.user(), a.password(), Duration.ofSeconds(2), a.readTimeout(), null, reconnect);
    }

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static CompletableFuture<Void> storeBatch(BackupSession s, TestData data, int i) {
        return data.storeBatch(s, i, BATCHES);
    }

    private static void backup(StoreClient client, TestData data) {
        BackupSession s = client.beginBackup();
        for (int i = 0; i < BATCHES; i++) {
            storeBatch(s, data, i).join();
        }
        s.commit(NAME, data.recipe).join();
    }

    private static byte[] restore(StoreClient client) {
        Fingerprint[] fps = client.recipe(NAME).orElseThrow().chunks().stream().map(r -> r.fingerprint()).toArray(Fingerprint[]::new);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (StoredChunk c : client.chunks(fps).join()) {
            out.writeBytes(TestData.decode(c));
        }
        return out.toByteArray();
    }

    @Test
    void aPortNothingListensOnIsPassedOverForTheNextAddress() throws Exception {
        TestData data = TestData.random(21, 500_000, 16_384, Codec.NONE);
        int closed = closedPort();
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"))) {
            // Control: that port alone does not serve.
            StoreConnectException alone = assertThrows(StoreConnectException.class, () -> StoreClient.connect(settings(store, Duration.ZERO, closed)));
            assertTrue(alone.getMessage().contains("127.0.0.1:" + closed), alone.getMessage());
            try (StoreClient client = StoreClient.connectPatiently(settings(store, Duration.ZERO, closed, store.port()))) {
                assertEquals("127.0.0.1:" + store.port(), client.address());
                backup(client, data);
            }
            try (StoreClient client = StoreClient.connectWithin(settings(store, Duration.ZERO, closed, store.port()))) {
                assertArrayEquals(data.bytes, restore(client));
            }
        }
    }

    @Test
    void aStandbyThatDoesNotServeTheUnitIsPassedOverAndTheStoreThatServedIsTriedFirstNextTime() throws Exception {
        TestData data = TestData.random(22, 200_000, 16_384, Codec.NONE);
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"));
             NotServedServer standby = NotServedServer.start()) {
            ClientSettings both = settings(store, Duration.ZERO, standby.port(), store.port());
            try (StoreClient client = StoreClient.connectPatiently(both)) {
                assertEquals(1, standby.logins(), "the standby was asked first");
                assertEquals("127.0.0.1:" + store.port(), client.address());
                backup(client, data);
            }
            try (StoreClient client = StoreClient.connect(both)) {
                assertEquals(1, standby.logins(), "the store that served last was asked first");
                assertArrayEquals(data.bytes, restore(client));
            }
        }
    }

    @Test
    void whenNoAddressServesTheMessageSaysWhatEachAnswered() throws Exception {
        int closed = closedPort();
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"));
             NotServedServer standby = NotServedServer.start()) {
            ClientSettings none = settings(store, Duration.ZERO, closed, standby.port());
            StoreConnectException e = assertThrows(StoreConnectException.class, () -> StoreClient.connectPatiently(none));
            assertEquals("no store serves unit 'alpha': 127.0.0.1:" + closed + " refused the connection; 127.0.0.1:" + standby.port()
                    + " does not hold it now (standby); tried for 2 s", e.getMessage());
            assertTrue(standby.logins() >= 2, "the standby was asked again on each round: " + standby.logins());
            // One address: what that store said, as ever.
            StoreServerException one = assertThrows(StoreServerException.class, () -> StoreClient.connect(settings(store, Duration.ZERO, standby.port())));
            assertEquals(ErrorCode.NOT_SERVED, one.code());
            assertTrue(one.getMessage().contains("is held by another store now"), one.getMessage());
        }
    }

    @Test
    void aRefusedOrThrottledLoginIsNotPassedOver() throws Exception {
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"));
             NotServedServer refusing = NotServedServer.start(ErrorCode.AUTH_FAILED);
             NotServedServer throttling = NotServedServer.start(ErrorCode.THROTTLED)) {
            StoreAuthException auth = assertThrows(StoreAuthException.class,
                    () -> StoreClient.connectPatiently(settings(store, Duration.ZERO, refusing.port(), store.port())));
            assertTrue(auth.getMessage().contains("127.0.0.1:" + refusing.port() + " refused user 'alice'"), auth.getMessage());
            StoreServerException throttled = assertThrows(StoreServerException.class,
                    () -> StoreClient.connectPatiently(settings(store, Duration.ZERO, throttling.port(), store.port())));
            assertEquals(ErrorCode.THROTTLED, throttled.code());
            // Control: the store behind them serves.
            try (StoreClient client = StoreClient.connect(settings(store, Duration.ZERO, store.port()))) {
                client.ping();
            }
        }
    }

    @Test
    void aBackupWhoseStoreGoesAwayMidStreamFinishesOnTheOtherAddress() throws Exception {
        TestData data = TestData.random(23, 2_000_000, 16_384, Codec.NONE);
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"));
             TcpRelay first = TcpRelay.start(new InetSocketAddress("127.0.0.1", store.port()));
             TcpRelay second = TcpRelay.start(new InetSocketAddress("127.0.0.1", store.port()));
             StoreClient client = StoreClient.connectPatiently(settings(store, Duration.ofSeconds(60), first.port(), second.port()))) {
            assertEquals("127.0.0.1:" + first.port(), client.address());
            BackupSession s = client.beginBackup();
            for (int i = 0; i < BATCHES / 2; i++) {
                storeBatch(s, data, i).join();
            }
            // Gone for good: every connection reset, new ones reset at once (closing the relay could race a reconnect in).
            first.cut(GONE);
            List<CompletableFuture<Void>> rest = new ArrayList<>();
            for (int i = BATCHES / 2; i < BATCHES; i++) {
                rest.add(storeBatch(s, data, i));
            }
            CompletableFuture.allOf(rest.toArray(new CompletableFuture<?>[0])).orTimeout(120, TimeUnit.SECONDS).join();
            s.commit(NAME, data.recipe).join();
            assertEquals(1, client.reconnects(), "first " + first.port() + ", second " + second.port() + ", leases " + s.leases());
            assertEquals("127.0.0.1:" + second.port(), client.address());
            assertArrayEquals(data.bytes, restore(client));
        }
    }

    @Test
    void controlWithTheGoneAddressAloneTheSameBackupFails() throws Exception {
        TestData data = TestData.random(24, 400_000, 16_384, Codec.NONE);
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"));
             TcpRelay first = TcpRelay.start(new InetSocketAddress("127.0.0.1", store.port()));
             StoreClient client = StoreClient.connectPatiently(settings(store, Duration.ofSeconds(2), first.port()))) {
            BackupSession s = client.beginBackup();
            storeBatch(s, data, 0).join();
            // Gone for good: every connection reset, new ones reset at once (closing the relay could race a reconnect in).
            first.cut(GONE);
            CompletionException e = assertThrows(CompletionException.class, () -> storeBatch(s, data, 1).orTimeout(120, TimeUnit.SECONDS).join());
            assertInstanceOf(StoreConnectionLostException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("no new connection within 2 s"), e.getCause().getMessage());
        }
    }
}
