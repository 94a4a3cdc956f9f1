package io.gpdedup.store.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.config.ConfigLoader;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.net.StoreFixture;
import io.gpdedup.store.net.StoreService;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The store's limits: per-unit capacity from the config file, idle and slow connections, 200 open connections. */
@Timeout(120)
class LimitsTest {
    @Test
    void fullUnitFailsBackupsCleanlyAndKeepsServingReads(@TempDir Path dir) throws IOException {
        String hash = PasswordHash.create("pw".toCharArray(), 1_000).encoded();
        Path file = dir.resolve("store.yaml");
        Files.writeString(file, "port: 0\ndata-dir: data\nunit-capacity-bytes: 4194304\nunits:\n  small:\n    users:\n      u: " + hash + "\n");
        StoreConfig cfg = ConfigLoader.load(file);
        assertEquals(4L << 20, cfg.unitCapacityBytes());
        try (StoreService store = StoreService.start(cfg, StoreService.openEngine(cfg));
                StoreClient client = StoreClient.connect(ClientSettings.of("127.0.0.1", store.address().getPort(), "small", "u", "pw"))) {
            Map<String, byte[]> written = new LinkedHashMap<>();
            StoreServerException refused = null;
            for (int i = 0; i < 16 && refused == null; i++) {
                byte[] data = ObjectIo.random(100 + i, 1 << 20);
                try {
                    ObjectIo.write(client, "full/" + i, data, 128 * 1024);
                    written.put("full/" + i, data);
                } catch (java.util.concurrent.CompletionException e) {
                    refused = (StoreServerException) e.getCause();
                } catch (StoreServerException e) {
                    refused = e;
                }
            }
            assertNotNull(refused, "16 MiB went into a 4 MiB unit");
            assertEquals(ErrorCode.STORE_ERROR, refused.code());
            System.out.println("capacity: " + written.size() + " objects of 1 MiB fit in 4 MiB; then: " + refused.getMessage());
            assertTrue(written.size() >= 2 && written.size() <= 4, "objects that fit: " + written.size());
            // Nothing half-committed: exactly the acknowledged objects are listed.
            List<String> listed = client.list("full/").stream().map(ObjectInfo::name).sorted().toList();
            assertEquals(written.keySet().stream().sorted().toList(), listed);
            assertTrue(client.stats().physicalBytes() <= 4L << 20, "physical bytes above capacity: " + client.stats().physicalBytes());
            // Reads keep working, on this connection and on a new one.
            for (var e : written.entrySet()) {
                assertArrayEquals(e.getValue(), ObjectIo.read(client, e.getKey()));
            }
            try (StoreClient other = StoreClient.connect(ClientSettings.of("127.0.0.1", store.address().getPort(), "small", "u", "pw"))) {
                VerifyReport v = other.verify();
                assertTrue(v.damagedObjects().isEmpty() && v.problems().isEmpty(), "verify after the refusal: " + v);
            }
        }
    }

    @Test
    void idleAndSlowConnectionsAreClosed(@TempDir Path dir) throws IOException {
        try (StoreFixture store = StoreFixture.start(dir, c -> c.withIdleTimeout(Duration.ofSeconds(1)), e -> e);
                Socket idle = new Socket("127.0.0.1", store.port());
                Socket slow = new Socket("127.0.0.1", store.port())) {
            idle.setSoTimeout(20_000);
            slow.setSoTimeout(20_000);
            // Half a frame header, then nothing: a slow-loris peer.
            slow.getOutputStream().write(new byte[] {0, 0, 0});
            assertClosedByServer(idle.getInputStream());
            assertClosedByServer(slow.getInputStream());
            try (StoreClient client = store.connectA()) {
                client.ping(); // the server itself is fine
            }
        }
    }

    private static void assertClosedByServer(InputStream in) throws IOException {
        try {
            while (in.read() >= 0) {
                // an ERROR frame may come first; the end of stream is what counts
            }
        } catch (SocketTimeoutException e) {
            throw new AssertionError("the server kept an idle connection open past its 1 s idle timeout (waited 20 s)");
        } catch (java.net.SocketException reset) {
            // closed too
        }
    }

    @Test
    void twoHundredConnectionsKeepMemoryBounded(@TempDir Path dir) {
        try (StoreFixture store = StoreFixture.start(dir)) {
            try (StoreClient warm = store.connectA()) {
                warm.ping();
            }
            long heapBefore = usedHeapAfterGc();
            long directBefore = directBytes();
            List<StoreClient> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 200; i++) {
                    StoreClient c = i % 2 == 0 ? store.connectA() : store.connectB();
                    c.ping();
                    clients.add(c);
                }
                assertEquals(200, store.service.metrics().openConnections());
                long heap = usedHeapAfterGc() - heapBefore;
                long direct = directBytes() - directBefore;
                System.out.printf("200 connections: heap +%d KiB (%d KiB each, server and client together), direct buffers +%d KiB%n",
                        heap >> 10, heap / 200 >> 10, direct >> 10);
                // Generous bound: a per-connection buffer sized by max-frame-bytes (16 MiB) would blow it 100 times over.
                assertTrue(heap < 200L * 256 * 1024, "heap grew by " + heap + " bytes for 200 connections");
                assertTrue(direct < 64L << 20, "direct memory grew by " + direct + " bytes for 200 connections");
            } finally {
                clients.forEach(StoreClient::close);
            }
        }
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }

    private static long directBytes() {
        long n = 0;
        for (BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class)) {
            n += pool.getMemoryUsed();
        }
        return n + io.netty.util.internal.PlatformDependent.usedDirectMemory();
    }
}
