package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.wire.ChunkUpload;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A backup interrupted by a kill -9 of {@code dist/bin/gpdedup-store} reconnects within the
 * reconnect grace and finishes, even though, between the restart and its reconnect, another
 * backup appended to the container the interrupted one had written to, recompression rewrote that
 * container into a new one, and garbage collection ran: the grace follows the records wherever
 * recompression or collection moves them.
 */
@Timeout(300)
class GraceAfterRestartTest {
    private static final String PASSWORD = "grace-test-password";
    private static final int CHUNKS = 40;
    private static final int CHUNK_BYTES = 64 << 10;
    private static final Pattern RECOMPRESSED = Pattern.compile("(?m)^gpdedup_store_recompression_containers_total (\\S+)$");

    @TempDir
    Path dir;

    @Test
    void anInterruptedBackupFinishesAfterRecompressionAndCollectionWithinTheGrace() throws Exception {
        Path home = dir.resolve("store-home");
        StoreProcess.writeConfig(home, "data-dir: data\nrecompress-after-idle-seconds: 1\nrecompress-level: 9\nreconnect-grace-seconds: 600\n",
                PASSWORD, 1_000);
        StoreProcess store = StoreProcess.start(home, List.of("--port", "0", "--metrics-port", "0"));
        int port = store.port();
        byte[] interrupted = text(1, CHUNKS * CHUNK_BYTES);
        byte[] other = text(2, 4 * CHUNK_BYTES);
        ClientSettings settings = ClientSettings.of("127.0.0.1", port, StoreProcess.UNIT, StoreProcess.USER, PASSWORD)
                .withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(60));
        try (StoreClient backupClient = StoreClient.connect(settings.withReconnectTimeout(Duration.ofSeconds(120)))) {
            BackupSession session = backupClient.beginBackup();
            List<ChunkUpload> uploads = uploads(interrupted);
            session.put(uploads).join();

            store.kill();
            store = StoreProcess.start(home, List.of("--port", String.valueOf(port), "--metrics-port", "0"));
            try (StoreClient c = StoreClient.connect(settings)) {
                write(c, "other", other); // appends to the container the interrupted backup wrote to
                awaitRecompression(store);
                GcReport gc = c.gc();
                System.out.println("after the restart: recompression rewrote the container, then " + gc);
            }

            // The interrupted backup's connection died with the store: the commit reconnects, finds its chunks, commits.
            session.commit("interrupted", recipe(uploads, interrupted)).join();
            session.close();
        } finally {
            store.close();
        }
        StoreProcess again = StoreProcess.start(home, List.of("--port", "0", "--metrics-port", "-1"));
        try (StoreClient c = StoreClient.connect(ClientSettings.of("127.0.0.1", again.port(), StoreProcess.UNIT, StoreProcess.USER, PASSWORD))) {
            assertArrayEquals(interrupted, read(c, "interrupted"));
            assertArrayEquals(other, read(c, "other"));
        } finally {
            again.close();
        }
    }

    /** Waits until the store logged a recompressed container in its metrics. */
    private static void awaitRecompression(StoreProcess store) throws Exception {
        String last = "";
        for (int i = 0; i < 600; i++) {
            last = store.metrics();
            Matcher m = RECOMPRESSED.matcher(last);
            if (m.find() && Double.parseDouble(m.group(1)) >= 1) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("no container was recompressed: " + last);
    }

    /** Lines of a made-up table: compressible, so recompression at level 9 rewrites chunks stored uncompressed. */
    private static byte[] text(int seed, int length) {
        StringBuilder b = new StringBuilder(length + 100);
        for (int row = 0; b.length() < length; row++) {
            b.append(seed).append('|').append(row).append("|customer-").append(row % 977).append("|order ").append(row * 31L % 100_003)
                    .append("|shipped|2026-11-").append(1 + row % 28).append('\n');
        }
        return b.substring(0, length).getBytes(StandardCharsets.US_ASCII);
    }

    private static List<ChunkUpload> uploads(byte[] data) {
        List<ChunkUpload> uploads = new ArrayList<>();
        for (int at = 0; at < data.length; at += CHUNK_BYTES) {
            byte[] raw = java.util.Arrays.copyOfRange(data, at, Math.min(data.length, at + CHUNK_BYTES));
            uploads.add(new ChunkUpload(Fingerprint.compute(raw, 0, raw.length), Codec.NONE, raw.length, raw));
        }
        return uploads;
    }

    private static Recipe recipe(List<ChunkUpload> uploads, byte[] data) throws Exception {
        List<ChunkRef> refs = uploads.stream().map(u -> new ChunkRef(u.fingerprint(), u.rawLength())).toList();
        return new Recipe(refs, data.length, MessageDigest.getInstance("SHA-256").digest(data));
    }

    private static void write(StoreClient c, String name, byte[] data) throws Exception {
        List<ChunkUpload> uploads = uploads(data);
        try (BackupSession s = c.beginBackup()) {
            s.put(uploads).join();
            s.commit(name, recipe(uploads, data)).join();
        }
    }

    private static byte[] read(StoreClient c, String name) {
        Recipe r = c.recipe(name).orElseThrow(() -> new AssertionError("no object " + name));
        Fingerprint[] fps = r.chunks().stream().map(ChunkRef::fingerprint).toArray(Fingerprint[]::new);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<StoredChunk> chunks = c.chunks(fps).join();
        for (int i = 0; i < chunks.size(); i++) {
            out.writeBytes(chunks.get(i).rawBytes(r.chunks().get(i), io.gpdedup.protocol.model.Fingerprint.newDigest()));
        }
        assertTrue(out.size() == r.totalLength());
        return out.toByteArray();
    }
}
