package io.gpdedup.store.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.store.net.StoreFixture;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsTest {

    @Test
    void theEndpointShowsTrafficDedupAndLatency(@TempDir Path dir) throws Exception {
        try (StoreFixture store = StoreFixture.start(dir, c -> c.withMetricsPort(0), e -> e)) {
            InetSocketAddress metrics = store.service.metricsAddress().orElseThrow();
            byte[] raw = new byte[4096];
            Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
            Recipe twice = new Recipe(List.of(new ChunkRef(fp, raw.length), new ChunkRef(fp, raw.length)), 2L * raw.length, Fingerprint.parse("5a".repeat(32)).toBytes());
            try (StoreClient client = store.connectA()) {
                try (BackupSession s = client.beginBackup()) {
                    s.missing(new Fingerprint[] {fp, fp}).join();
                    s.put(List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw))).join();
                    s.commit("a", twice).join();
                }
                try (BackupSession s = client.beginBackup()) {
                    s.missing(new Fingerprint[] {fp}).join();
                    assertEquals(1, store.service.metrics().activeLeases());
                    String during = get(metrics, "/metrics");
                    assertEquals(1.0, value(during, "gpdedup_store_leases_active"));
                    assertEquals(1.0, value(during, "gpdedup_store_connections"));
                    s.commit("b", twice).join();
                }
                String text = get(metrics, "/metrics");
                assertEquals(3.0, value(text, "gpdedup_store_lookups_total"));
                assertEquals(2.0, value(text, "gpdedup_store_chunks_new_total"), "both lookups of the first batch came before the put");
                assertEquals(1.0, value(text, "gpdedup_store_chunks_duplicate_total"));
                assertEquals(1.0, value(text, "gpdedup_store_chunks_put_total"));
                assertEquals(2.0, value(text, "gpdedup_store_commits_total"));
                assertEquals(4.0 * raw.length, value(text, "gpdedup_store_committed_logical_bytes_total"));
                assertEquals(4.0 * raw.length, value(text, "gpdedup_store_unit_logical_bytes{unit=\"alpha\"}"));
                assertEquals(4.0, value(text, "gpdedup_store_unit_dedup_ratio{unit=\"alpha\"}"), 0.01, "4 logical blocks on 1 physical");
                assertEquals(0.0, value(text, "gpdedup_store_leases_active"));
                assertTrue(value(text, "gpdedup_store_frame_memory_bytes") >= 16 << 20, "the upload's frame came from a 16 MiB pool chunk");
                assertTrue(text.contains("gpdedup_store_request_seconds_bucket{outcome=\"ok\",type=\"commit\",le=\"0.001\"}"), text);
                // A request's time is recorded once its reply is on its way: the client may ask before that.
                String commits = "gpdedup_store_request_seconds_count{outcome=\"ok\",type=\"commit\"}";
                for (int i = 0; i < 200 && value(text, commits) < 2.0; i++) {
                    Thread.sleep(25);
                    text = get(metrics, "/metrics");
                }
                assertEquals(2.0, value(text, commits));
            }
            assertEquals(404, status(metrics, "/other"));
        }
    }

    @Test
    void theNetworkCountersCountEveryByteCrossingTheSocket(@TempDir Path dir) throws Exception {
        try (StoreFixture store = StoreFixture.start(dir, c -> c.withMetricsPort(0), e -> e)) {
            InetSocketAddress metrics = store.service.metricsAddress().orElseThrow();
            String before = get(metrics, "/metrics");
            assertEquals(0.0, value(before, "gpdedup_store_network_received_bytes_total"));
            assertEquals(0.0, value(before, "gpdedup_store_network_sent_bytes_total"));
            byte[] reply;
            // A frame length below the header: the store answers with an error and closes, so both
            // directions are known to the byte from this side. Each is counted before the client can
            // see the reply: what the store read before it answered, what it wrote before the bytes left.
            try (Socket socket = new Socket("127.0.0.1", store.port())) {
                socket.getOutputStream().write(new byte[] {0, 0, 0, 1});
                socket.getOutputStream().flush();
                reply = socket.getInputStream().readAllBytes();
            }
            assertTrue(reply.length > 0, "the store answers a malformed frame before closing");
            String after = get(metrics, "/metrics");
            assertEquals(reply.length, value(after, "gpdedup_store_network_sent_bytes_total"));
            assertEquals(4.0, value(after, "gpdedup_store_network_received_bytes_total"));

            byte[] raw = new byte[100_000];
            Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
            try (StoreClient client = store.connectA(); BackupSession s = client.beginBackup()) {
                s.put(List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw))).join();
                s.commit("a", new Recipe(List.of(new ChunkRef(fp, raw.length)), raw.length, Fingerprint.parse("5a".repeat(32)).toBytes())).join();
            }
            double received = value(get(metrics, "/metrics"), "gpdedup_store_network_received_bytes_total") - 4;
            assertTrue(received > raw.length && received < raw.length + 4096,
                    "a session that uploads one 100,000-byte chunk is that chunk and some framing, not " + received);
        }
    }

    private static double value(String text, String series) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(text);
        assertTrue(m.find(), series + " not in:\n" + text);
        return Double.parseDouble(m.group(1));
    }

    private static String get(InetSocketAddress a, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + a.getPort() + path).openConnection();
        assertEquals(200, c.getResponseCode());
        assertTrue(c.getContentType().startsWith("text/plain"));
        try (InputStream in = c.getInputStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    private static int status(InetSocketAddress a, String path) throws IOException {
        HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + a.getPort() + path).openConnection();
        return c.getResponseCode();
    }
}
