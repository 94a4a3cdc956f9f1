package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.testsupport.S3Server;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failover of a bucket unit between two {@code dist/bin/gpdedup-store} processes on a real S3
 * server (S3Proxy), each with its own home and data directory and the same config: a second
 * store without {@code --standby} still refuses to start while the first holds the unit's lease
 * (the control); with {@code --standby} it starts, answers a login for the unit with NOT_SERVED
 * (and an admin command run against it says why), and once the first store is killed with -9 it
 * takes the unit over and serves every backup the first acknowledged, byte for byte.
 */
@Timeout(300)
class StandbyFailoverTest {
    private static final String PASSWORD = "standby-test-password";
    private static final int LEASE_SECONDS = 6;
    private static final int CHUNK_BYTES = 32 << 10;
    private static final Pattern STANDBY_UNITS = Pattern.compile("(?m)^gpdedup_store_units_standby (\\S+)$");
    private static final Pattern TAKE_OVERS = Pattern.compile("(?m)^gpdedup_store_takeovers_total (\\S+)$");

    @TempDir
    Path dir;

    @Test
    void aStandbyServesEveryAcknowledgedBackupAfterTheHolderIsKilled() throws Exception {
        S3Server s3 = S3Server.shared();
        String bucket = s3.newBucket("standby");
        Path homeA = dir.resolve("a");
        StoreProcess.writeConfig(homeA, "listen-address: 127.0.0.1\ndata-dir: data\nstorage:\n  type: s3\n  endpoint: " + s3.endpoint()
                + "\n  region: " + S3Server.REGION + "\n  bucket: " + bucket + "\n  prefix: site1/\n  path-style: true\n  cache-bytes: 64MiB\n"
                + "  lease-seconds: " + LEASE_SECONDS + "\n", PASSWORD, 1_000);
        Path homeB = sameConfig(homeA, "b");
        Path homeC = sameConfig(homeA, "c");

        Map<String, byte[]> acknowledged = new LinkedHashMap<>();
        StoreProcess a = StoreProcess.start(homeA, List.of("--port", "0", "--metrics-port", "-1"));
        StoreProcess b = null;
        try {
            try (StoreClient c = StoreClient.connect(settings(a.port()))) {
                for (int i = 0; i < 4; i++) {
                    byte[] data = data(i, 3 * CHUNK_BYTES + i * 1000);
                    write(c, "db/obj" + i, data);
                    acknowledged.put("db/obj" + i, data);
                }
            }

            // The control: without --standby a store sharing the bucket still refuses to start while the lease is live.
            IOException refused = assertThrows(IOException.class, () -> StoreProcess.start(homeC, List.of("--port", "0", "--metrics-port", "-1")));
            assertTrue(refused.getMessage().contains("exited with status 1"), refused.getMessage());
            assertTrue(refused.getMessage().contains("storage unit prod is served by the store on host"), refused.getMessage());

            StoreProcess standby = StoreProcess.start(homeB, List.of("--port", "0", "--metrics-port", "0", "--standby"));
            b = standby;
            StoreServerException notServed = assertThrows(StoreServerException.class, () -> StoreClient.connect(settings(standby.port())).close());
            assertEquals(ErrorCode.NOT_SERVED, notServed.code(), notServed.getMessage());
            assertTrue(notServed.getMessage().contains("storage unit 'prod' is held by the store on host")
                    && notServed.getMessage().contains("this store is its standby"), notServed.getMessage());
            assertEquals(1.0, gauge(b, STANDBY_UNITS));
            adminCommandIsRefused(b.port());

            // Acknowledged after the standby started: the take-over loads what the holder wrote up to its end.
            try (StoreClient c = StoreClient.connect(settings(a.port()))) {
                byte[] data = data(9, 5 * CHUNK_BYTES);
                write(c, "db/last", data);
                acknowledged.put("db/last", data);
            }

            a.kill();
            long killed = System.nanoTime();
            long deadline = killed + TimeUnit.SECONDS.toNanos(120);
            StoreClient served = null;
            while (served == null) {
                try {
                    served = StoreClient.connect(settings(b.port()));
                } catch (StoreServerException e) {
                    assertEquals(ErrorCode.NOT_SERVED, e.code(), e.getMessage());
                    assertTrue(System.nanoTime() < deadline, "the standby did not take the unit over within 120 s: " + e.getMessage());
                    Thread.sleep(100);
                }
            }
            try (StoreClient c = served) {
                long loggedIn = System.nanoTime();
                String first = acknowledged.keySet().iterator().next();
                Recipe r = c.recipe(first).orElseThrow(() -> new AssertionError("the standby does not list " + first));
                c.chunks(new Fingerprint[] {r.chunks().get(0).fingerprint()}).join();
                long firstByte = System.nanoTime();
                System.out.printf("failover with lease-seconds %d, lease settle %s ms: kill -9 -> first login %d ms, -> first restored chunk %d ms%n",
                        LEASE_SECONDS, System.getProperty("gpdedup.s3.lease-settle-millis", "2000"),
                        TimeUnit.NANOSECONDS.toMillis(loggedIn - killed), TimeUnit.NANOSECONDS.toMillis(firstByte - killed));
                for (Map.Entry<String, byte[]> e : acknowledged.entrySet()) {
                    assertArrayEquals(e.getValue(), read(c, e.getKey()), e.getKey());
                }
            }
            assertEquals(0.0, gauge(b, STANDBY_UNITS));
            assertEquals(1.0, gauge(b, TAKE_OVERS));
            String log = Files.readString(homeB.resolve("store.err"));
            String takeOver = log.lines().filter(l -> l.contains("storage unit prod: taken over from the store on host")).findFirst()
                    .orElseThrow(() -> new AssertionError("the standby logged no take-over: " + log));
            System.out.println("the standby's log: " + takeOver);
        } finally {
            a.close();
            if (b != null) {
                b.close();
            }
        }
    }

    /** A home for another store: the same config file, its own data directory under it. */
    private static Path sameConfig(Path home, String name) throws IOException {
        Path other = home.resolveSibling(name);
        Files.createDirectories(other.resolve(".gpdedup"));
        Files.copy(home.resolve(".gpdedup").resolve("store.yaml"), other.resolve(".gpdedup").resolve("store.yaml"));
        return other;
    }

    private static ClientSettings settings(int port) {
        return ClientSettings.of("127.0.0.1", port, StoreProcess.UNIT, StoreProcess.USER, PASSWORD)
                .withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(60));
    }

    /** {@code gpdedup-store stat} against the standby: one line saying the unit is another store's, exit 1. */
    private void adminCommandIsRefused(int port) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), "stat", "--host", "127.0.0.1", "--port",
                String.valueOf(port), "--unit", StoreProcess.UNIT, "--user", StoreProcess.USER);
        pb.environment().put("GPDEDUP_STORE_PASSWORD", PASSWORD);
        pb.environment().put("HOME", dir.toString());
        Path err = dir.resolve("stat.err");
        Process p = pb.redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "stat did not finish");
        String text = Files.readString(err).strip();
        assertEquals(1, p.exitValue(), text);
        assertTrue(text.contains("this store is its standby") && !text.contains("Exception") && !text.contains("\n"), text);
    }

    private static double gauge(StoreProcess store, Pattern meter) throws Exception {
        String text = store.metrics();
        Matcher m = meter.matcher(text);
        assertTrue(m.find(), "no " + meter + " in the metrics");
        return Double.parseDouble(m.group(1));
    }

    private static byte[] data(int seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        // Half text: some chunks compress, as table data does.
        byte[] text = ("row " + seed + " | customer | shipped\n").repeat(length / 40 + 1).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(text, 0, b, 0, length / 2);
        return b;
    }

    private static List<ChunkUpload> uploads(byte[] data) {
        List<ChunkUpload> uploads = new ArrayList<>();
        for (int at = 0; at < data.length; at += CHUNK_BYTES) {
            byte[] raw = Arrays.copyOfRange(data, at, Math.min(data.length, at + CHUNK_BYTES));
            uploads.add(new ChunkUpload(Fingerprint.compute(raw, 0, raw.length), Codec.NONE, raw.length, raw));
        }
        return uploads;
    }

    /** One backup, returning once the store acknowledged its commit. */
    private static void write(StoreClient c, String name, byte[] data) throws Exception {
        List<ChunkUpload> uploads = uploads(data);
        List<ChunkRef> refs = uploads.stream().map(u -> new ChunkRef(u.fingerprint(), u.rawLength())).toList();
        try (BackupSession s = c.beginBackup()) {
            s.put(uploads).join();
            s.commit(name, new Recipe(refs, data.length, MessageDigest.getInstance("SHA-256").digest(data))).join();
        }
    }

    private static byte[] read(StoreClient c, String name) {
        Recipe r = c.recipe(name).orElseThrow(() -> new AssertionError("the standby does not list " + name));
        Fingerprint[] fps = r.chunks().stream().map(ChunkRef::fingerprint).toArray(Fingerprint[]::new);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        List<StoredChunk> chunks = c.chunks(fps).join();
        for (int i = 0; i < chunks.size(); i++) {
            out.writeBytes(chunks.get(i).rawBytes(r.chunks().get(i), Fingerprint.newDigest()));
        }
        assertEquals(r.totalLength(), out.size(), name);
        return out.toByteArray();
    }
}
