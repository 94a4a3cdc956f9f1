package io.gpdedup.store.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.store.StoreRun;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.s3.MotoBuckets;
import io.gpdedup.testsupport.MotoServer;
import io.gpdedup.testsupport.S3Server;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * {@code gpdedup-store serve} on a bucket of a real S3 server (S3Proxy), in its own JVM with the
 * credentials in its environment: what a start says when the bucket cannot be used, a second
 * store refused the unit the first one serves, and SYNC with the uploaded flag.
 */
@Timeout(300)
class S3ServeTest {

    @TempDir
    Path dir;

    private Path config(String name, String endpoint, String bucket) throws IOException {
        return config(name, endpoint, bucket, "");
    }

    /** {@code unitExtra}: more settings of unit prod, each line indented by four spaces. */
    private Path config(String name, String endpoint, String bucket, String unitExtra) throws IOException {
        Path file = dir.resolve(name + ".yaml");
        Files.writeString(file, "port: 0\nmetrics-port: -1\ndata-dir: " + name + "-data\n"
                + "storage:\n  type: s3\n  endpoint: " + endpoint + "\n  bucket: " + bucket + "\n  prefix: site1/\n  path-style: true\n"
                + "  cache-dir: " + name + "-cache\n  cache-bytes: 64MiB\n"
                + "units:\n  prod:\n    users:\n      backup: " + PasswordHash.create("pw".toCharArray(), 1000).encoded() + "\n" + unitExtra);
        return file;
    }

    private static ProcessBuilder serve(Path config, String secret) {
        return StoreRun.serve(config, S3Server.IDENTITY, secret);
    }

    @Test
    void aBucketThatCannotBeUsedStopsTheStartWithOneLine() throws Exception {
        S3Server server = S3Server.shared();
        String bucket = server.newBucket("serve-check");
        StoreRun.Result missing = StoreRun.toExit(serve(config("missing", server.endpoint().toString(), "no-such-bucket"), S3Server.CREDENTIAL));
        StoreRun.assertOneLine(missing, 2, "gpdedup-store: storage: bucket no-such-bucket does not exist at " + server.endpoint()
                + ": create it, or set storage.bucket to an existing one");

        StoreRun.Result wrongKey = StoreRun.toExit(serve(config("wrong", server.endpoint().toString(), bucket), "not-the-secret"));
        StoreRun.assertOneLine(wrongKey, 2, "gpdedup-store: storage: list bucket " + bucket);
        assertTrue(wrongKey.stderr().contains("check the credentials"), wrongKey.stderr());

        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        StoreRun.Result nowhere = StoreRun.toExit(serve(config("nowhere", "http://127.0.0.1:" + closed, bucket), S3Server.CREDENTIAL));
        StoreRun.assertOneLine(nowhere, 2, "gpdedup-store: storage: list bucket " + bucket);
        assertTrue(nowhere.stderr().contains("cannot reach http://127.0.0.1:" + closed), nowhere.stderr());
    }

    /** A retention lock the bucket cannot hold: on moto, a bucket made without Object Lock; S3Proxy has none. */
    @Test
    void aLockedUnitOnABucketWithoutObjectLockStopsTheStartWithOneLineAndChangesNothing() throws Exception {
        String lock = "    retention-lock: {mode: governance, days: 30}\n";
        MotoServer moto = MotoServer.shared();
        String plain = moto.newBucket("serve-nolock", false);
        StoreRun.Result onMoto = StoreRun.toExit(serve(config("moto", moto.endpoint().toString(), plain, lock), S3Server.CREDENTIAL));
        StoreRun.assertOneLine(onMoto, 2, "gpdedup-store: storage: units.prod.retention-lock asks for governance locks of 30 days, but bucket "
                + plain + " at " + moto.endpoint() + " does not have S3 Object Lock enabled: create the bucket with object lock enabled");
        try (S3Client raw = MotoBuckets.client()) {
            assertEquals(0, raw.listObjectVersions(b -> b.bucket(plain)).versions().size(), "nothing written to the bucket");
        }
        assertFalse(Files.exists(dir.resolve("moto-data")) || Files.exists(dir.resolve("moto-cache")), "nothing written to disk");

        S3Server proxy = S3Server.shared();
        String bucket = proxy.newBucket("serve-proxy-lock");
        StoreRun.Result onProxy = StoreRun.toExit(serve(config("proxy", proxy.endpoint().toString(), bucket, lock), S3Server.CREDENTIAL));
        StoreRun.assertOneLine(onProxy, 2, "gpdedup-store: storage: units.prod.retention-lock asks for governance locks of 30 days, but bucket "
                + bucket + " at " + proxy.endpoint() + " does not have S3 Object Lock enabled");
        try (Stream<Path> files = Files.list(proxy.bucketDirectory(bucket))) {
            assertEquals(0, files.count(), "nothing written to the bucket");
        }

        // The control: the same unit on a bucket made with Object Lock starts.
        String locked = moto.newBucket("serve-lock", true);
        ProcessBuilder pb = serve(config("locked", moto.endpoint().toString(), locked, lock), S3Server.CREDENTIAL);
        Process p = pb.redirectErrorStream(true).start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            boolean listening = false;
            while (!listening && (line = out.readLine()) != null) {
                listening = StoreRun.LISTENING.matcher(line).find();
            }
            assertTrue(listening, "the store on a bucket with Object Lock started");
        } finally {
            p.getOutputStream().close();
            p.destroy();
            p.waitFor(60, TimeUnit.SECONDS);
        }
    }

    @Test
    void aSecondStoreIsRefusedTheUnitAndNamesItsHolder() throws Exception {
        S3Server server = S3Server.shared();
        String bucket = server.newBucket("serve-two");
        byte[] raw = new byte[300_000];
        new Random(4).nextBytes(raw);
        Process first = serve(config("first", server.endpoint().toString(), bucket), S3Server.CREDENTIAL)
                .redirectError(dir.resolve("first.err").toFile()).start();
        try {
            int port = listeningPort(first, "first");

            Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
            Recipe recipe = new Recipe(List.of(new ChunkRef(fp, raw.length)), raw.length, Fingerprint.newDigest().digest(raw));
            try (StoreClient client = StoreClient.connect(ClientSettings.of("127.0.0.1", port, "prod", "backup", "pw"));
                 BackupSession s = client.beginBackup()) {
                s.missing(new Fingerprint[] {fp}).join();
                s.put(List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw))).join();
                s.commit("db/one", recipe).join();
            }

            StoreRun.Result second = StoreRun.toExit(serve(config("second", server.endpoint().toString(), bucket), S3Server.CREDENTIAL));
            StoreRun.assertOneLine(second, 1, "gpdedup-store: storage unit prod is served by the store on host ");
            assertTrue(second.stderr().contains("(pid " + first.pid() + ","), second.stderr());
        } finally {
            first.destroy(); // SIGTERM: a clean stop gives the lease back
            assertTrue(first.waitFor(60, TimeUnit.SECONDS));
        }
        assertEquals(0, first.exitValue(), Files.readString(dir.resolve("first.err")));
        Process second = serve(config("second", server.endpoint().toString(), bucket), S3Server.CREDENTIAL)
                .redirectError(dir.resolve("second.err").toFile()).start();
        try {
            int port = listeningPort(second, "second");
            try (StoreClient client = StoreClient.connect(ClientSettings.of("127.0.0.1", port, "prod", "backup", "pw"))) {
                Recipe r = client.recipe("db/one").orElseThrow();
                assertArrayEquals(raw, client.chunks(new Fingerprint[] {r.chunks().get(0).fingerprint()}).join().get(0).payload(),
                        "the second store serves what the first one committed");
            }
        } finally {
            second.destroy();
            assertTrue(second.waitFor(60, TimeUnit.SECONDS));
        }
    }

    /**
     * A backup session retaining what it stored (protocol version 7 tells it the unit is a bucket's)
     * sends SYNC with the uploaded flag: once a batch is stored, its container is in the bucket,
     * before any commit. The control, retaining nothing, sends only the plain SYNC: nothing is in
     * the bucket until the commit.
     */
    @Test
    void syncWithTheUploadedFlagPutsTheBatchsContainerInTheBucket() throws Exception {
        S3Server server = S3Server.shared();
        String bucket = server.newBucket("serve-uploaded");
        Process store = serve(config("uploaded", server.endpoint().toString(), bucket), S3Server.CREDENTIAL)
                .redirectError(dir.resolve("uploaded.err").toFile()).start();
        try {
            int port = listeningPort(store, "uploaded");
            ClientSettings settings = ClientSettings.of("127.0.0.1", port, "prod", "backup", "pw");
            try (StoreClient client = StoreClient.connect(settings)) {
                assertEquals(0, storedThenContainersInBucket(client, 0, 5, server.bucketDirectory(bucket)),
                        "a plain SYNC leaves the batch in the spool");
                assertEquals(1, storedThenContainersInBucket(client, 1, 6, server.bucketDirectory(bucket)),
                        "SYNC with the uploaded flag sealed and uploaded the container holding the batch");
            }
        } finally {
            store.destroy();
            assertTrue(store.waitFor(60, TimeUnit.SECONDS));
        }
    }

    /** Stores one chunk in a session retaining {@code retain} bytes; the container objects in the bucket then, before the session ends. */
    private static long storedThenContainersInBucket(StoreClient client, long retain, int seed, Path bucketDir) throws IOException {
        byte[] raw = new byte[100_000];
        new Random(seed).nextBytes(raw);
        Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
        try (BackupSession s = client.beginBackup()) {
            s.retainUpTo(retain, BackupSession.Room.UNCOUNTED);
            s.store(fp.toBytes(), missing -> CompletableFuture.completedFuture(
                    missing[0] ? List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw)) : List.of())).join();
            try (Stream<Path> files = Files.walk(bucketDir)) {
                return files.filter(f -> f.getFileName().toString().endsWith(".ctr")).count();
            }
        }
    }

    /** The port {@code store} says it listens on, in its first line of output (within 120 s); its {@code NAME.err} explains a failure. */
    private int listeningPort(Process store, String name) throws Exception {
        return StoreRun.port(StoreRun.firstLine(store), dir.resolve(name + ".err"));
    }
}
