package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.SdkCredentials;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.cli.StoreMain;
import io.gpdedup.store.crypt.Kek;
import io.gpdedup.store.crypt.KeySource;
import io.gpdedup.store.s3.MotoBuckets;
import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.testsupport.ByteSearch;
import io.gpdedup.testsupport.ConsoleCapture;
import io.gpdedup.testsupport.MotoServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectVersion;

/**
 * encrypt-unit on a plaintext bucket unit under a retention lock, on moto (S3 Object Lock): the
 * sealed recipes and containers carry the plaintext ones' retention, the plaintext versions the
 * bucket still holds stay (counted, and hidden from listings), and the unit serves its backups.
 */
@Timeout(600)
class S3EncryptUnitLockTest {
    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(64 << 10);
    private static final byte[] MARKER = "gpdedup-locked-convert-4f1a".getBytes(StandardCharsets.US_ASCII);
    private static final CommitPolicy GOVERNANCE = new CommitPolicy(RetentionLock.Mode.GOVERNANCE, 2, false);
    private static final String UNIT = "site1/units/prod/";

    @TempDir
    Path dir;

    @RegisterExtension
    final SdkCredentials credentials = new SdkCredentials(MotoServer.IDENTITY, MotoServer.CREDENTIAL);

    private DedupStoreEngine open(S3Settings s3, Kek kek) {
        return DedupStoreEngine.open(dir.resolve("data"), SMALL, S3Backend.factory(s3.withCacheDir(dir.resolve("cache")),
                Map.of("prod", GOVERNANCE), kek));
    }

    private static byte[] marked(long seed, int length) {
        byte[] b = TestObjects.data(seed, length, false);
        for (int at = 100; at + MARKER.length < length; at += 10_000) {
            System.arraycopy(MARKER, 0, b, at, MARKER.length);
        }
        return b;
    }

    @Test
    void theLocksCarryOverAndTheHeldPlaintextVersionsAreKeptHiddenAndCounted() throws IOException {
        Path keyFile = dir.resolve("store.key");
        assertEquals(0, StoreMain.run("new-key", keyFile.toString()));
        Kek kek = new KeySource(keyFile, null).load();
        S3Settings s3 = MotoBuckets.fresh("convert-locked", true, dir.resolve("cache"));
        byte[] first = marked(1, 200_000);
        byte[] second = marked(2, 150_000);
        try (DedupStoreEngine engine = open(s3, null)) {
            StorageUnit unit = engine.unit("prod");
            try (BackupLease lease = unit.beginBackup()) {
                lease.commit("db/first", TestObjects.upload(lease, first, 4096, Codec.NONE), GOVERNANCE).join();
            }
            TestObjects.backup(unit, "db/second", second, 4096, Codec.NONE); // no lock: its recipe is not held
        }
        Map<String, Instant> recipeLocks = new TreeMap<>();
        Instant containerLock;
        try (S3Client moto = MotoBuckets.client()) {
            for (String k : MotoBuckets.keys(moto, s3.bucket(), UNIT + "recipes/")) {
                recipeLocks.put(k, MotoBuckets.retainedUntil(moto, s3.bucket(), k));
            }
            containerLock = MotoBuckets.keys(moto, s3.bucket(), UNIT + "containers/").stream().filter(k -> k.endsWith(".ctr"))
                    .map(k -> MotoBuckets.retainedUntil(moto, s3.bucket(), k)).max(Instant::compareTo).orElseThrow();
            assertFalse(current(moto, s3.bucket()).isEmpty(), "control: the plaintext unit's objects hold the marker");
        }
        assertEquals(2, recipeLocks.size(), recipeLocks.toString());
        assertEquals(1, recipeLocks.values().stream().filter(i -> i.isAfter(Instant.now())).count(), "control: one recipe is held");

        Path config = config(s3, keyFile);
        ConsoleCapture converted = ConsoleCapture.run(() -> StoreMain.run("encrypt-unit", "--config", config.toString(), "prod"));
        assertEquals(0, converted.exit(), converted.err());
        assertTrue(converted.out().startsWith("unit prod encrypted under key " + kek.id()), converted.out());
        assertTrue(converted.out().contains(" plaintext object version(s) stay in the bucket, held by their retention locks"), converted.out());

        try (S3Client moto = MotoBuckets.client()) {
            assertEquals(List.of(), current(moto, s3.bucket()), "no current object holds the marker");
            for (Map.Entry<String, Instant> r : recipeLocks.entrySet()) {
                byte[] now = moto.getObjectAsBytes(b -> b.bucket(s3.bucket()).key(r.getKey())).asByteArray();
                assertEquals("GPDSEAL1", new String(now, 0, 8, StandardCharsets.US_ASCII), r.getKey());
                assertEquals(r.getValue(), MotoBuckets.retainedUntil(moto, s3.bucket(), r.getKey()), "the recipe's lock carried over");
            }
            List<String> containers = MotoBuckets.keys(moto, s3.bucket(), UNIT + "containers/");
            assertFalse(containers.isEmpty());
            for (String k : containers) {
                assertEquals(ObjectLockMode.GOVERNANCE, MotoBuckets.mode(moto, s3.bucket(), k), k);
                assertFalse(MotoBuckets.retainedUntil(moto, s3.bucket(), k).isBefore(containerLock), k);
            }
            // The held plaintext is still there, as its retention demands, but only as noncurrent versions.
            List<String> heldPlain = new ArrayList<>();
            for (ObjectVersion v : MotoBuckets.versions(moto, s3.bucket(), UNIT)) {
                byte[] b = moto.getObjectAsBytes(r -> r.bucket(s3.bucket()).key(v.key()).versionId(v.versionId())).asByteArray();
                if (ByteSearch.indexOf(b, MARKER) >= 0) {
                    assertFalse(Boolean.TRUE.equals(v.isLatest()), v.key());
                    heldPlain.add(v.key());
                }
            }
            assertFalse(heldPlain.isEmpty(), "the locked plaintext containers are kept");
        }
        try (DedupStoreEngine engine = open(s3, kek)) {
            StorageUnit unit = engine.unit("prod");
            assertArrayEquals(first, TestObjects.restore(unit, "db/first"));
            assertArrayEquals(second, TestObjects.restore(unit, "db/second"));
            assertEquals(RetentionLock.Mode.GOVERNANCE, unit.list("db/first").get(0).lock().mode());
            assertTrue(unit.verify().ok());
        }
    }

    /** The current objects of the bucket whose bytes hold the marker. */
    private static List<String> current(S3Client moto, String bucket) {
        List<String> out = new ArrayList<>();
        for (String k : MotoBuckets.keys(moto, bucket, "")) {
            if (ByteSearch.indexOf(moto.getObjectAsBytes(b -> b.bucket(bucket).key(k)).asByteArray(), MARKER) >= 0) {
                out.add(k);
            }
        }
        return out;
    }

    private Path config(S3Settings s3, Path keyFile) throws IOException {
        Path file = dir.resolve("store.yaml");
        Files.writeString(file, "port: 0\nmetrics-port: -1\ndata-dir: " + dir.resolve("data") + "\nencryption:\n  key-file: " + keyFile + "\n"
                + "storage:\n  type: s3\n  endpoint: " + s3.endpoint() + "\n  bucket: " + s3.bucket()
                + "\n  prefix: site1/\n  path-style: true\n  cache-dir: " + dir.resolve("cache") + "\n"
                + "units:\n  prod:\n    users:\n      backup: " + PasswordHash.create("pw".toCharArray(), 1000).encoded() + "\n"
                + "    retention-lock: {mode: governance, days: 2}\n");
        return file;
    }
}
