package io.gpdedup.store.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.store.StoreRun;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.cli.StoreMain;
import io.gpdedup.testsupport.FaultProxy;
import io.gpdedup.testsupport.S3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fencing between two {@code gpdedup-store serve} processes on one bucket of a real S3 server
 * (S3Proxy): store A reaches it through {@link FaultProxy}, which holds A's recipe PUT and then
 * refuses A's lease renewals; store B starts once A's lease lapsed and serves the unit; then the
 * PUT lands. The backup is either not acknowledged, or listed by B and kept by B's garbage
 * collection; never acknowledged and invisible.
 */
@Timeout(300)
class S3FencingServeTest {

    @TempDir
    Path dir;

    @Test
    void aRecipeLandingAfterATakeOverIsNeverAcknowledgedAndInvisible() throws Exception {
        S3Server server = S3Server.shared();
        String bucket = server.newBucket("fence-serve");
        byte[] before = bytes(1);
        byte[] late = bytes(2);
        try (FaultProxy proxy = FaultProxy.start(server.port())) {
            Process a = start(config("a", proxy.endpoint(), bucket));
            Process b = null;
            try {
                ClientSettings toA = ClientSettings.of("127.0.0.1", port(a, "a"), "prod", "backup", "pw");
                try (StoreClient client = StoreClient.connect(toA)) {
                    backup(client, "db/before", before).join(); // the control: acknowledged while A holds the lease
                }
                proxy.hold("/recipes/");
                StoreClient lateClient = StoreClient.connect(toA);
                CompletableFuture<Void> commit = backup(lateClient, "db/late", late);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (proxy.held() == 0) {
                    assertTrue(System.nanoTime() < deadline, "the recipe PUT never reached the proxy");
                    Thread.sleep(50);
                }
                proxy.refuseWrites(true); // A's renewals fail from now on: its lease lapses

                // B refuses to start while A's lease is live, then takes the unit over.
                int portB = -1;
                while (portB < 0) {
                    assertTrue(System.nanoTime() < deadline, "B never took the unit over");
                    b = start(config("b", server.endpoint().toString(), bucket));
                    portB = port(b, "b");
                    if (portB < 0) {
                        assertTrue(b.waitFor(60, TimeUnit.SECONDS));
                        String err = Files.readString(dir.resolve("b.err"));
                        assertTrue(err.contains("storage unit prod is served by the store on host"), err);
                        b = null;
                        Thread.sleep(500);
                    }
                }
                ClientSettings toB = ClientSettings.of("127.0.0.1", portB, "prod", "backup", "pw");
                try (StoreClient client = StoreClient.connect(toB)) {
                    List<String> atTakeOver = names(client.list(""));
                    assertTrue(atTakeOver.contains("db/before"), atTakeOver.toString());
                    assertFalse(atTakeOver.contains("db/late"), "the held PUT had not landed when B started: " + atTakeOver);
                    proxy.release(); // the PUT lands now, after the take-over

                    boolean acknowledged;
                    String outcome;
                    try {
                        commit.get(120, TimeUnit.SECONDS);
                        acknowledged = true;
                        outcome = "acknowledged";
                    } catch (ExecutionException e) {
                        acknowledged = false;
                        outcome = e.getCause().getMessage();
                        System.out.println("not acknowledged: " + outcome);
                    } finally {
                        lateClient.close();
                    }
                    boolean visible = names(client.list("")).contains("db/late");
                    assertTrue(!acknowledged || visible, "A acknowledged the backup, but B, which took the unit over, does not list it");
                    if (!acknowledged) {
                        assertTrue(outcome.contains("lease") && !outcome.contains("Exception"), outcome);
                    }
                    client.gc();
                    assertArrayEquals(before, restore(client, "db/before"));
                    if (visible) {
                        assertArrayEquals(late, restore(client, "db/late"));
                    }
                    VerifyReport v = client.verify();
                    assertTrue(v.ok(), v.toString());
                }
            } finally {
                stop(a);
                stop(b);
            }
        }
    }

    private Path config(String name, String endpoint, String bucket) throws IOException {
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, "port: 0\nmetrics-port: -1\ndata-dir: " + name + "-data\n"
                + "storage:\n  type: s3\n  endpoint: " + endpoint + "\n  bucket: " + bucket + "\n  prefix: site1/\n  path-style: true\n"
                + "  cache-dir: " + name + "-cache\n  cache-bytes: 64MiB\n  lease-seconds: 6\n"
                + "units:\n  prod:\n    users:\n      backup: " + PasswordHash.create("pw".toCharArray(), 1000).encoded() + "\n");
        return file;
    }

    private Process start(Path config) throws IOException {
        String name = config.getFileName().toString().replace(".yaml", "");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                "-Dgpdedup.s3.lease-settle-millis=" + System.getProperty("gpdedup.s3.lease-settle-millis", "2000"),
                StoreMain.class.getName(), "serve", "--config", config.toString());
        pb.environment().put("AWS_ACCESS_KEY_ID", S3Server.IDENTITY);
        pb.environment().put("AWS_SECRET_ACCESS_KEY", S3Server.CREDENTIAL);
        pb.environment().put("HOME", dir.toString());
        pb.directory(dir.toFile());
        return pb.redirectError(dir.resolve(name + ".err").toFile()).start();
    }

    /** The port the store listens on, or -1 when it exited without listening. */
    private int port(Process p, String name) throws Exception {
        String line = StoreRun.firstLine(p);
        return line == null ? -1 : StoreRun.port(line, dir.resolve(name + ".err"));
    }

    private static void stop(Process p) throws InterruptedException {
        if (p != null) {
            p.destroy();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
    }

    private static byte[] bytes(long seed) {
        byte[] b = new byte[200_000];
        new Random(seed).nextBytes(b);
        return b;
    }

    /** One chunk and its recipe; the commit's future. */
    private static CompletableFuture<Void> backup(StoreClient client, String name, byte[] raw) {
        Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
        Recipe recipe = new Recipe(List.of(new ChunkRef(fp, raw.length)), raw.length, Fingerprint.newDigest().digest(raw));
        BackupSession s = client.beginBackup();
        s.missing(new Fingerprint[] {fp}).join();
        s.put(List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw))).join();
        return s.commit(name, recipe);
    }

    private static byte[] restore(StoreClient client, String name) {
        Recipe r = client.recipe(name).orElseThrow();
        Fingerprint[] fps = r.chunks().stream().map(ChunkRef::fingerprint).toArray(Fingerprint[]::new);
        var chunks = client.chunks(fps).join();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (var c : chunks) {
            out.writeBytes(c.payload());
        }
        return out.toByteArray();
    }

    private static List<String> names(List<ObjectInfo> objects) {
        return objects.stream().map(ObjectInfo::name).toList();
    }
}
