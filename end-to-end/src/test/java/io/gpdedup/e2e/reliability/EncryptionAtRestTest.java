package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.testsupport.ByteSearch;
import io.gpdedup.testsupport.DiskSnapshot;
import io.gpdedup.testsupport.S3Server;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Encryption at rest through the real executables: a stream backed up through
 * {@code gpbackup_dedup_plugin} into a {@code dist/bin/gpdedup-store} whose config has
 * {@code encryption: {key-file: ...}} restores byte for byte while no file of the store holds a
 * marker the stream carries (a plaintext store, the control, does); a missing, short or wrong key
 * stops the store at start with one line and exit 2, changing nothing on disk. The same for a unit
 * in a bucket (S3Proxy): no object of the bucket and no file of the store's data and cache
 * directories holds the marker, while a plaintext bucket unit's objects do.
 */
@Timeout(300)
class EncryptionAtRestTest {
    private static final byte[] MARKER = "gpdedup-e2e-at-rest-marker-93ab".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    /** Random bytes (which compression does not hide) with the marker every 50,000 bytes. */
    private static byte[] stream() {
        byte[] b = new byte[3_000_000];
        new Random(11).nextBytes(b);
        for (int at = 1000; at + MARKER.length < b.length; at += 50_000) {
            System.arraycopy(MARKER, 0, b, at, MARKER.length);
        }
        return b;
    }

    private Path newKey(String name) throws IOException, InterruptedException {
        Path key = dir.resolve(name);
        Process p = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), "new-key", key.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), out);
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(key)));
        return key;
    }

    /** Backs up and restores the marked stream through the plugin; returns the store's home. */
    private Path backupAndRestore(String name, String storeSettings) throws Exception {
        Path hostDir = Files.createDirectories(dir.resolve(name));
        byte[] data = stream();
        try (StoreAndPlugin host = StoreAndPlugin.start(hostDir, storeSettings, "off")) {
            String cfg = host.config("plugin", host.storePort(), "");
            String key = host.key(0, new Timestamps().next(), 16384);
            host.plugin().run(new ByteArrayInputStream(data), "backup_data", cfg, key).assertSucceeded();
            assertArrayEquals(data, host.plugin().run("restore_data", cfg, key).assertSucceeded().stdout());
            host.killStore(); // a crash: the restart scans the sealed records
            host.restartStore();
            assertArrayEquals(data, host.plugin().run("restore_data", cfg, key).assertSucceeded().stdout(), "after a crash and a restart");
        }
        return hostDir.resolve("store-home");
    }

    @Test
    void noFileOfAnEncryptedStoreHoldsTheMarkerWhileAPlaintextStoresFilesDo() throws Exception {
        Path plain = backupAndRestore("plain", "");
        assertTrue(ByteSearch.filesContaining(plain.resolve(".gpdedup/store"), MARKER).size() > 0, "control: the plaintext store holds the marker");

        Path key = newKey("store.key");
        Path sealed = backupAndRestore("sealed", "encryption:\n  key-file: " + key + "\n");
        Path dataDir = sealed.resolve(".gpdedup/store");
        assertTrue(Files.exists(dataDir.resolve("units/prod/keys")), "the unit is encrypted");
        assertTrue(Files.exists(dataDir.resolve("units/prod/index.snap")), "the index snapshot of the clean stop is there (sealed)");
        assertEquals(List.of(), ByteSearch.filesContaining(sealed, MARKER));

        // What a start with a bad key does to that data directory: nothing.
        Map<String, String> before = DiskSnapshot.of(dataDir);
        Path config = sealed.resolve(".gpdedup/store.yaml");
        String text = Files.readString(config);
        Path shortKey = Files.writeString(dir.resolve("short.key"), "gpdedup-key v1\nAAAA\n");
        Path wrongKey = newKey("wrong.key");
        for (Path k : List.of(dir.resolve("absent.key"), shortKey, wrongKey)) {
            Files.writeString(config, text.replace(key.toString(), k.toString()));
            Start s = serve(sealed);
            assertEquals(2, s.exit, s.stderr);
            List<String> lines = s.stderr.lines().filter(l -> !l.isBlank()).toList();
            assertEquals(1, lines.size(), s.stderr);
            assertTrue(lines.get(0).startsWith("gpdedup-store: "), lines.get(0));
            assertTrue(lines.get(0).contains(k == wrongKey ? "wrong key" : "encryption.key-file " + k), lines.get(0));
            assertEquals(before, DiskSnapshot.of(dataDir), "a refused start changes nothing on disk");
        }
        Files.writeString(config, text);
    }

    @Test
    void noObjectOfAnEncryptedBucketUnitHoldsTheMarkerWhileAPlaintextOnesDo() throws Exception {
        S3Server server = S3Server.shared();
        String plainBucket = server.newBucket("e2e-plain");
        backupAndRestore("plain-s3", storage(plainBucket));
        assertTrue(objectsContaining(plainBucket, MARKER).size() > 0, "control: the plaintext bucket unit holds the marker");

        Path key = newKey("bucket.key");
        String sealedBucket = server.newBucket("e2e-sealed");
        Path sealed = backupAndRestore("sealed-s3", "encryption:\n  key-file: " + key + "\n" + storage(sealedBucket));
        List<String> keys = objectsContaining(sealedBucket, new byte[0]);
        assertTrue(keys.contains("site1/units/prod/keys") && keys.contains("site1/units/prod/index.snap"),
                "the unit is encrypted, its index checkpoint written: " + keys);
        assertEquals(List.of(), objectsContaining(sealedBucket, MARKER));
        assertTrue(Files.isDirectory(sealed.resolve(".gpdedup/store/cache")), "the cache directory is in the data directory, searched below");
        assertEquals(List.of(), ByteSearch.filesContaining(sealed, MARKER));

        Path config = sealed.resolve(".gpdedup/store.yaml");
        String text = Files.readString(config);
        Path wrongKey = newKey("wrong-bucket.key");
        Files.writeString(config, text.replace(key.toString(), wrongKey.toString()));
        Start s = serve(sealed);
        assertEquals(2, s.exit, s.stderr);
        // The start's log lines (the bucket it reached) come first; the refusal is one line, without a trace.
        List<String> lines = s.stderr.lines().filter(l -> l.startsWith("gpdedup-store: ")).toList();
        assertEquals(1, lines.size(), s.stderr);
        assertTrue(!s.stderr.contains("Exception") && !s.stderr.contains("\tat "), s.stderr);
        assertTrue(lines.get(0).startsWith("gpdedup-store: unit prod is encrypted under key ") && lines.get(0).endsWith("wrong key"), lines.get(0));
        Files.writeString(config, text);
    }

    /** The {@code storage:} block of a store home's config for {@code bucket} (the cache directory: the default, in the data directory). */
    private static String storage(String bucket) {
        return "storage:\n  type: s3\n  endpoint: " + S3Server.shared().endpoint() + "\n  region: " + S3Server.REGION + "\n  bucket: "
                + bucket + "\n  prefix: site1/\n  path-style: true\n  cache-bytes: 64MiB\n";
    }

    /** The keys of the objects of {@code bucket} whose bytes hold {@code needle} (every object for an empty one). */
    private static List<String> objectsContaining(String bucket, byte[] needle) {
        List<String> out = new ArrayList<>();
        try (S3Client s3 = S3Client.builder().endpointOverride(S3Server.shared().endpoint()).region(Region.of(S3Server.REGION))
                .forcePathStyle(true).requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(S3Server.IDENTITY, S3Server.CREDENTIAL)))
                .build()) {
            for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
                if (ByteSearch.indexOf(s3.getObjectAsBytes(b -> b.bucket(bucket).key(o.key())).asByteArray(), needle) >= 0) {
                    out.add(o.key());
                }
            }
        }
        return out;
    }

    private record Start(int exit, String stderr) {
    }

    /** {@code gpdedup-store serve} on the home's config, expected to stop by itself. */
    private static Start serve(Path home) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), "serve", "--port", "0", "--metrics-port", "-1");
        pb.environment().put("HOME", home.toString());
        pb.environment().put("AWS_ACCESS_KEY_ID", S3Server.IDENTITY);
        pb.environment().put("AWS_SECRET_ACCESS_KEY", S3Server.CREDENTIAL);
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        Process p = pb.start();
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError("the store started with a bad key: " + err);
        }
        return new Start(p.exitValue(), err);
    }
}
