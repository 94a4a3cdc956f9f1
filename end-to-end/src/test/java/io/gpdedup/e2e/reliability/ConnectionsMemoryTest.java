package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.store.auth.PasswordHash;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * 200 authenticated connections held open against a real {@code dist/bin/gpdedup-store} process
 * (its own JVM, default flags): the store's resident memory ({@code VmRSS} of
 * {@code /proc/<pid>/status}) before, with the 200 open, and after its idle timeout
 * ({@code idle-timeout-seconds}) closed them all, which it must do neither early nor late.
 */
@Timeout(300)
class ConnectionsMemoryTest {
    private static final int CONNECTIONS = Integer.getInteger("gpdedup.connections", 200);
    private static final int IDLE_SECONDS = 5;
    /** 320 KiB per connection: a buffer per connection sized by the frame limit (16 MiB) would pass it at the fourth. */
    private static final long MAX_GROWTH_BYTES = 64L << 20;
    private static final String PASSWORD = "memory-test-password";
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final Pattern CONNECTIONS_GAUGE = Pattern.compile("(?m)^gpdedup_store_connections (\\d+)(?:\\.0)?$");

    @TempDir
    Path dir;

    @Test
    void twoHundredConnectionsStayBoundedAndIdleOnesAreClosed() throws Exception {
        Path home = dir.resolve("store-home");
        StoreProcess.writeConfig(home, "metrics-port: 0\ndata-dir: data\nidle-timeout-seconds: " + IDLE_SECONDS + "\n", PASSWORD,
                PasswordHash.DEFAULT_ITERATIONS);
        try (StoreProcess store = StoreProcess.start(home, List.of("--port", "0"))) {
            URI metrics = store.metricsUri().orElseThrow();
            ClientSettings settings = ClientSettings.of("127.0.0.1", store.port(), StoreProcess.UNIT, StoreProcess.USER, PASSWORD);
            // One login first: the PBKDF2 check, class loading and the pools' first buffers are not per connection.
            try (StoreClient warm = StoreClient.connect(settings)) {
                warm.ping();
            }
            Thread.sleep(1000);
            long before = rss(store.pid());

            List<StoreClient> clients = new ArrayList<>();
            long openStart = System.nanoTime();
            try {
                for (int i = 0; i < CONNECTIONS; i++) {
                    StoreClient c = StoreClient.connect(settings);
                    clients.add(c);
                    c.ping();
                }
                long openMillis = (System.nanoTime() - openStart) / 1_000_000;
                // A second round trip on each, so that none is near its idle timeout while we measure.
                for (StoreClient c : clients) {
                    c.ping();
                }
                long lastTraffic = System.nanoTime();
                assertEquals(CONNECTIONS, connections(metrics), "connections the store counts");
                long open = rss(store.pid());

                Thread.sleep((IDLE_SECONDS - 2) * 1000L);
                assertEquals(CONNECTIONS, connections(metrics), "closed before the idle timeout of " + IDLE_SECONDS + " s");
                long deadline = System.nanoTime() + Duration.ofSeconds(IDLE_SECONDS * 6L).toNanos();
                int left;
                while ((left = connections(metrics)) > 0 && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                double closedAfter = (System.nanoTime() - lastTraffic) / 1e9;
                assertEquals(0, left, "connections still open " + closedAfter + " s after their last request");
                int refused = 0;
                for (StoreClient c : clients) {
                    try {
                        c.ping();
                    } catch (StoreClientException closed) {
                        refused++;
                    }
                }
                assertEquals(CONNECTIONS, refused, "clients whose connection the store closed");
                Thread.sleep(1000);
                long after = rss(store.pid());

                System.out.printf("%d connections: store RSS %d KiB before, %d KiB with them open (+%d KiB, %d KiB each), %d KiB after the idle"
                        + " timeout closed them %.1f s after their last request; opened in %d ms%n",
                        CONNECTIONS, before >> 10, open >> 10, (open - before) >> 10, (open - before) / CONNECTIONS >> 10, after >> 10, closedAfter, openMillis);
                assertTrue(open - before < MAX_GROWTH_BYTES, "store RSS grew by " + (open - before) + " bytes for " + CONNECTIONS + " connections");
                assertFalse(after - before > MAX_GROWTH_BYTES, "store RSS after the connections closed: " + after + " bytes, before: " + before);
            } finally {
                clients.forEach(StoreClient::close);
            }
        }
    }

    private static long rss(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) << 10;
            }
        }
        throw new IOException("no VmRSS in /proc/" + pid + "/status");
    }

    private static int connections(URI metrics) throws IOException, InterruptedException {
        String body = HTTP.send(HttpRequest.newBuilder(metrics).timeout(Duration.ofSeconds(30)).build(),
                HttpResponse.BodyHandlers.ofString()).body();
        Matcher m = CONNECTIONS_GAUGE.matcher(body);
        if (!m.find()) {
            throw new AssertionError("no gpdedup_store_connections in " + metrics);
        }
        return Integer.parseInt(m.group(1));
    }
}
