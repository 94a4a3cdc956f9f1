package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.SdkCredentials;
import io.gpdedup.store.StoreRun;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.cli.StoreMain;
import io.gpdedup.store.crypt.Kek;
import io.gpdedup.store.crypt.KeyException;
import io.gpdedup.store.crypt.KeySource;
import io.gpdedup.store.s3.MotoBuckets;
import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.store.s3.TestBuckets;
import io.gpdedup.testsupport.ByteSearch;
import io.gpdedup.testsupport.ConsoleCapture;
import io.gpdedup.testsupport.S3Server;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketVersioningStatus;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Bucket units encrypted at rest, on a real S3 server (S3Proxy): what the bucket and the cache
 * directory hold, a start from the sealed checkpoints, garbage collection and recompression, a
 * tampered object, a wrong or missing key at start, and rotate-key.
 */
@Timeout(600)
class S3EncryptionTest {
    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(64 << 10);
    private static final byte[] MARKER = "gpdedup-bucket-marker-93c2ab".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    @RegisterExtension
    final SdkCredentials credentials = new SdkCredentials(S3Server.IDENTITY, S3Server.CREDENTIAL);

    /** Random bytes, which no codec shrinks, with the marker in them every 10,000 bytes. */
    private static byte[] marked(long seed, int length) {
        byte[] b = TestObjects.data(seed, length, false);
        for (int at = 100; at + MARKER.length < length; at += 10_000) {
            System.arraycopy(MARKER, 0, b, at, MARKER.length);
        }
        return b;
    }

    private DedupStoreEngine open(S3Settings s3, Kek kek) {
        return DedupStoreEngine.open(dir.resolve("data"), SMALL, S3Backend.factory(s3.withCacheDir(cache()), Map.of(), kek));
    }

    /** Opens unit {@code unit} (a bucket unit is opened when first asked for) and closes the engine again. */
    private void openUnit(S3Settings s3, Kek kek, String unit) {
        try (DedupStoreEngine engine = open(s3, kek)) {
            engine.unit(unit);
        }
    }

    private Path cache() {
        return dir.resolve("cache");
    }

    private static S3Client raw(S3Settings settings) {
        return S3Client.builder().endpointOverride(settings.endpoint()).region(Region.of(S3Server.REGION))
                .forcePathStyle(true).requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED).credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3Server.IDENTITY, S3Server.CREDENTIAL))).build();
    }

    /** Every object of the bucket by key, with its bytes: every version when the bucket is versioned. */
    private static Map<String, byte[]> everyObject(S3Settings settings) {
        String bucket = settings.bucket();
        Map<String, byte[]> out = new TreeMap<>();
        try (S3Client s3 = raw(settings)) {
            boolean versioned;
            try {
                versioned = s3.getBucketVersioning(b -> b.bucket(bucket)).status() == BucketVersioningStatus.ENABLED;
            } catch (S3Exception e) {
                versioned = false; // S3Proxy's filesystem backend has no versioning
            }
            if (versioned) {
                for (ObjectVersion v : s3.listObjectVersionsPaginator(b -> b.bucket(bucket)).versions()) {
                    out.put(v.key() + "@" + v.versionId(),
                            s3.getObjectAsBytes(b -> b.bucket(bucket).key(v.key()).versionId(v.versionId())).asByteArray());
                }
            } else {
                for (S3Object o : s3.listObjectsV2Paginator(b -> b.bucket(bucket)).contents()) {
                    out.put(o.key(), s3.getObjectAsBytes(b -> b.bucket(bucket).key(o.key())).asByteArray());
                }
            }
        }
        return out;
    }

    private static List<String> objectsContaining(Map<String, byte[]> objects, byte[] needle) {
        List<String> out = new ArrayList<>();
        objects.forEach((k, v) -> {
            if (ByteSearch.indexOf(v, needle) >= 0) {
                out.add(k);
            }
        });
        return out;
    }

    /** Files under the data directory and the cache directory, and how many of them hold {@code needle}. */
    private int[] filesWith(byte[] needle) throws IOException {
        int files = 0;
        int found = 0;
        for (Path root : List.of(dir.resolve("data"), cache())) {
            if (!Files.exists(root)) {
                continue;
            }
            try (var walk = Files.walk(root)) {
                for (Path p : walk.filter(Files::isRegularFile).toList()) {
                    files++;
                    found += ByteSearch.indexOf(Files.readAllBytes(p), needle) >= 0 ? 1 : 0;
                }
            }
        }
        return new int[] {files, found};
    }

    private static String bucketOf(S3Settings s3) {
        return s3.bucket();
    }

    @Test
    void theBucketAndTheCacheHoldTheMarkerOnlyWhenTheUnitIsNotEncrypted() throws IOException {
        // More containers than the read cache keeps in memory: a second restore puts segments on its disk.
        byte[] object = marked(1, 1_500_000);

        S3Settings plain = TestBuckets.fresh("plain-marker", cache());
        try (DedupStoreEngine engine = open(plain, null)) {
            TestObjects.backup(engine.unit("u1"), "db/marked", object, 8192, Codec.NONE);
            assertArrayEquals(object, TestObjects.restore(engine.unit("u1"), "db/marked"));
            assertArrayEquals(object, TestObjects.restore(engine.unit("u1"), "db/marked"));
            assertTrue(filesWith(MARKER)[1] > 0, "control: the read cache of a plaintext unit holds the marker");
        }
        assertFalse(objectsContaining(everyObject(plain), MARKER).isEmpty(), "control: a plaintext bucket unit holds the marker");

        Kek kek = Kek.generate();
        S3Settings sealed = TestBuckets.fresh("sealed-marker", cache());
        Recipe recipe;
        try (DedupStoreEngine engine = open(sealed, kek)) {
            StorageUnit unit = engine.unit("u1");
            recipe = TestObjects.backup(unit, "db/marked", object, 8192, Codec.NONE);
            TestObjects.backup(unit, "db/again", object, 8192, Codec.NONE);
            assertArrayEquals(object, TestObjects.restore(unit, "db/marked"));
            assertArrayEquals(object, TestObjects.restore(unit, "db/again"));
            int[] cached = filesWith(MARKER);
            assertTrue(cached[0] > 0, "the read cache holds ranges of containers");
            assertEquals(0, cached[1], "no file of the data or cache directory holds the marker");
        }
        Map<String, byte[]> objects = everyObject(sealed);
        for (String part : List.of("keys", "index.snap", "catalog.snap", ".idx", ".ctr", "recipes/")) {
            assertTrue(objects.keySet().stream().anyMatch(k -> k.startsWith("site1/units/u1/") && k.contains(part)), part + " in " + objects.keySet());
        }
        assertEquals(List.of(), objectsContaining(objects, MARKER));
        assertEquals(List.of(), objectsContaining(objects, recipe.chunks().get(0).fingerprint().toBytes()), "fingerprints are sealed");
        assertEquals(List.of(), objectsContaining(objects, "db/marked".getBytes(StandardCharsets.US_ASCII)), "object names are sealed");

        try (DedupStoreEngine engine = open(sealed, kek)) {
            StorageUnit unit = engine.unit("u1");
            Map<String, Long> r = ((S3Backend) engine.backend()).requests().snapshot();
            // the lease (read, read back), the keys object, the first container's head, the index and catalog checkpoints
            assertTrue(r.getOrDefault("GetObject", 0L) <= 6, "a start from the sealed checkpoints, reading no index object: " + r);
            assertEquals(2, unit.list("db/").size());
            assertArrayEquals(object, TestObjects.restore(unit, "db/again"));
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());
        }
        assertEquals(List.of(), objectsContaining(everyObject(sealed), MARKER));
    }

    @Test
    void garbageCollectionAndRecompressionWorkOnAnEncryptedBucketUnit() throws IOException {
        Kek kek = Kek.generate();
        S3Settings s3 = TestBuckets.fresh("sealed-gc", cache());
        byte[] gone = marked(2, 40 * 8192);
        // Every other chunk of the deleted object stays live through this one: its containers are half dead, and copied.
        byte[] shared = new byte[20 * 8192];
        for (int i = 0; i < 20; i++) {
            System.arraycopy(gone, 2 * i * 8192, shared, i * 8192, 8192);
        }
        byte[] kept = rows(3, 300_000);
        try (DedupStoreEngine engine = open(s3, kek)) {
            StorageUnit unit = engine.unit("u1");
            TestObjects.backup(unit, "db/gone", gone, 8192, Codec.NONE);
            TestObjects.backup(unit, "db/shared", shared, 8192, Codec.NONE);
            TestObjects.backup(unit, "db/kept", kept, 8192, Codec.NONE);
            long before = unit.stats().physicalBytes();
            assertEquals(1, unit.deleteObject("db/gone", false).objects());
            GcReport gc = unit.collectGarbage();
            assertTrue(gc.chunksRemoved() > 0, "the deleted object's own chunks are collected: " + gc);
            assertTrue(gc.containersRewritten() > 0, "the live records of half-dead containers are copied: " + gc);
            assertArrayEquals(shared, TestObjects.restore(unit, "db/shared"));
            long collected = unit.stats().physicalBytes();
            assertTrue(collected < before, "collected: " + before + " -> " + collected);
            int rewritten = 0;
            for (int steps = 0;; steps++) {
                assertTrue(steps < 1000, "recompression settles");
                Recompression.Outcome o = unit.recompressNext(9, () -> true).outcome();
                if (o == Recompression.Outcome.NOTHING_PENDING) {
                    break;
                }
                rewritten += o == Recompression.Outcome.REWRITTEN ? 1 : 0;
            }
            assertTrue(rewritten > 0, "the rows' containers were recompressed");
            assertTrue(unit.stats().physicalBytes() < collected - 100_000, "recompressed: " + collected + " -> " + unit.stats());
            assertArrayEquals(kept, TestObjects.restore(unit, "db/kept"));
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());
        }
        try (DedupStoreEngine engine = open(s3, kek)) {
            StorageUnit unit = engine.unit("u1");
            assertArrayEquals(kept, TestObjects.restore(unit, "db/kept"));
            assertArrayEquals(shared, TestObjects.restore(unit, "db/shared"));
            assertTrue(unit.verify().ok());
        }
        assertEquals(List.of(), objectsContaining(everyObject(s3), MARKER));
        assertEquals(List.of(), objectsContaining(everyObject(s3), "customer-".getBytes(StandardCharsets.US_ASCII)),
                "the recompressed records are sealed too");
    }

    /** COPY-text-like rows, which zstd shrinks well. */
    private static byte[] rows(long seed, int length) {
        java.util.Random r = new java.util.Random(seed);
        StringBuilder s = new StringBuilder(length + 100);
        while (s.length() < length) {
            s.append(r.nextInt(1_000_000)).append('\t').append("customer-").append(r.nextInt(5000)).append('\t')
                    .append(r.nextInt(100_000) / 100.0).append("\tstatus_").append(r.nextInt(4)).append('\n');
        }
        return s.substring(0, length).getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    void aTamperedObjectInTheBucketIsReportedByVerifyAndNeverRestored() throws IOException {
        Kek kek = Kek.generate();
        S3Settings s3 = TestBuckets.fresh("sealed-tamper", cache());
        byte[] object = marked(4, 40_000);
        try (DedupStoreEngine engine = open(s3, kek)) {
            TestObjects.backup(engine.unit("u1"), "a", object, 8192, Codec.NONE);
        }
        String container = everyObject(s3).keySet().stream().filter(k -> k.endsWith(".ctr")).findFirst().orElseThrow();
        try (S3Client s3raw = raw(s3)) {
            byte[] b = s3raw.getObjectAsBytes(r -> r.bucket(bucketOf(s3)).key(container)).asByteArray();
            b[b.length / 2] ^= 0x01; // inside a record's sealed payload
            s3raw.putObject(r -> r.bucket(bucketOf(s3)).key(container), RequestBody.fromBytes(b));
        }
        try (DedupStoreEngine engine = open(s3, kek)) {
            StorageUnit unit = engine.unit("u1");
            VerifyReport v = unit.verify();
            assertFalse(v.ok(), "verify finds the flipped bit");
            assertTrue(v.toString().contains("authenticate"), v.toString());
            StoreException e = assertThrows(StoreException.class, () -> TestObjects.restore(unit, "a"));
            assertTrue(e.getMessage().contains("damaged"), e.getMessage());
        }
    }

    @Test
    void aWrongOrMissingKeyStopsTheStartWithOneLineAndAPlaintextUnitKeepsWorking() throws Exception {
        Path keyA = dir.resolve("a.key");
        Path keyB = dir.resolve("b.key");
        assertEquals(0, StoreMain.run("new-key", keyA.toString()));
        assertEquals(0, StoreMain.run("new-key", keyB.toString()));
        Kek a = new KeySource(keyA, null).load();
        Kek b = new KeySource(keyB, null).load();
        S3Settings s3 = TestBuckets.fresh("sealed-keys", cache());
        try (DedupStoreEngine engine = open(s3, a)) {
            TestObjects.backup(engine.unit("prod"), "a", marked(5, 30_000), 8192, Codec.NONE);
        }
        StoreRun.Result wrong = serve(config(s3, keyB));
        StoreRun.assertOneLine(wrong, 2, "gpdedup-store: unit prod is encrypted under key " + a.id() + ", not under the configured key " + b.id()
                + ": wrong key");
        StoreRun.Result none = serve(config(s3, null));
        StoreRun.assertOneLine(none, 2, "gpdedup-store: unit prod is encrypted, but the config has no encryption key");

        try (S3Client s3raw = raw(s3)) {
            byte[] keys = s3raw.getObjectAsBytes(r -> r.bucket(bucketOf(s3)).key("site1/units/prod/keys")).asByteArray();
            assertEquals(List.of(), objectsContaining(Map.of("keys", keys), a.toText().lines().toList().get(1).getBytes(StandardCharsets.US_ASCII)),
                    "the keys object holds the data keys wrapped, never the key that wraps them");
            s3raw.deleteObject(r -> r.bucket(bucketOf(s3)).key("site1/units/prod/keys"));
            KeyException lost = assertThrows(KeyException.class, () -> openUnit(s3, a, "prod"));
            assertTrue(lost.getMessage().contains("keys object") && lost.getMessage().contains("missing"), lost.getMessage());
            s3raw.putObject(r -> r.bucket(bucketOf(s3)).key("site1/units/prod/keys"), RequestBody.fromBytes(keys));
        }
        try (DedupStoreEngine engine = open(s3, a)) {
            assertEquals(30_000, TestObjects.restore(engine.unit("prod"), "a").length, "control: the right key opens it");
        }

        S3Settings plain = TestBuckets.fresh("plain-keys", cache());
        byte[] object = marked(6, 30_000);
        try (DedupStoreEngine engine = open(plain, null)) {
            TestObjects.backup(engine.unit("u1"), "a", object, 8192, Codec.NONE);
        }
        try (DedupStoreEngine engine = open(plain, a)) {
            assertArrayEquals(object, TestObjects.restore(engine.unit("u1"), "a"), "a plaintext bucket unit keeps working with a key configured");
        }
        assertFalse(everyObject(plain).keySet().stream().anyMatch(k -> k.endsWith("/keys")), "and stays plaintext");
        assertFalse(objectsContaining(everyObject(plain), MARKER).isEmpty(), "control: its objects hold the marker");
        Path plainConfig = config(plain, keyA);
        ConsoleCapture convert = ConsoleCapture.run(() -> StoreMain.run("encrypt-unit", "--config", plainConfig.toString(), "u1"));
        assertEquals(0, convert.exit(), convert.err());
        assertTrue(convert.out().startsWith("unit u1 encrypted under key " + a.id()), convert.out());
        assertEquals(List.of(), objectsContaining(everyObject(plain), MARKER), "encrypt-unit sealed the plaintext unit");
        try (DedupStoreEngine engine = open(plain, a)) {
            assertArrayEquals(object, TestObjects.restore(engine.unit("u1"), "a"), "and the key opens it");
        }
        KeyException noKey = assertThrows(KeyException.class, () -> openUnit(plain, null, "u1"));
        assertTrue(noKey.getMessage().contains("the config has no encryption key"), noKey.getMessage());
    }

    @Test
    void aUnitWhoseConversionDidNotFinishIsRefusedByTheStartAndByRotateKey() throws Exception {
        Path keyFile = dir.resolve("a.key");
        Path newKey = dir.resolve("b.key");
        assertEquals(0, StoreMain.run("new-key", keyFile.toString()));
        assertEquals(0, StoreMain.run("new-key", newKey.toString()));
        Kek kek = new KeySource(keyFile, null).load();
        S3Settings s3 = TestBuckets.fresh("half-converted", cache());
        byte[] object = marked(11, 30_000);
        try (DedupStoreEngine engine = open(s3, kek)) {
            TestObjects.backup(engine.unit("prod"), "a", object, 8192, Codec.NONE);
        }
        Path config = config(s3, keyFile);
        ConsoleCapture control = ConsoleCapture.run(() -> StoreMain.run("rotate-key", "--config", config.toString(), "--new-key-file",
                newKey.toString()));
        assertEquals(0, control.exit(), "control: " + control.err());
        Map<String, byte[]> before = everyObject(s3);
        try (S3Client s3raw = raw(s3)) {
            s3raw.putObject(r -> r.bucket(bucketOf(s3)).key("site1/units/prod/containers/encrypting"), RequestBody.fromBytes(new byte[] {1}));
        }
        Path rotated = Files.writeString(dir.resolve("rotated.yaml"), Files.readString(config).replace(keyFile.toString(), newKey.toString()));
        String refusal = "unit prod: a conversion to encrypted did not finish; run gpdedup-store encrypt-unit prod again";
        StoreRun.assertOneLine(serve(rotated), 2, "gpdedup-store: " + refusal);
        ConsoleCapture rotate = ConsoleCapture.run(() -> StoreMain.run("rotate-key", "--config", rotated.toString(), "--new-key-file",
                keyFile.toString()));
        assertEquals(2, rotate.exit(), rotate.err());
        assertEquals("gpdedup-store rotate-key: " + refusal + "\n", rotate.err());
        Map<String, byte[]> after = everyObject(s3);
        after.remove("site1/units/prod/containers/encrypting");
        after.keySet().removeIf(k -> k.endsWith("/lease"));
        before.keySet().removeIf(k -> k.endsWith("/lease"));
        assertEquals(before.keySet(), after.keySet());
        before.forEach((k, v) -> assertArrayEquals(v, after.get(k), k));
    }

    @Test
    void rotateKeyRewrapsABucketUnitsKeysWithoutRewritingContainers() throws IOException {
        Path oldKey = dir.resolve("old.key");
        Path newKey = dir.resolve("new.key");
        assertEquals(0, StoreMain.run("new-key", oldKey.toString()));
        assertEquals(0, StoreMain.run("new-key", newKey.toString()));
        Kek old = new KeySource(oldKey, null).load();
        Kek next = new KeySource(newKey, null).load();
        S3Settings s3 = TestBuckets.fresh("sealed-rotate", cache());
        byte[] object = marked(7, 120_000);
        try (DedupStoreEngine engine = open(s3, old)) {
            TestObjects.backup(engine.unit("prod"), "a", object, 8192, Codec.NONE);
        }
        Map<String, byte[]> before = everyObject(s3);
        Path config = config(s3, oldKey);
        ConsoleCapture rotated = ConsoleCapture.run(() -> StoreMain.run("rotate-key", "--config", config.toString(),
                "--new-key-file", newKey.toString()));
        assertEquals(0, rotated.exit(), rotated.err());
        assertTrue(rotated.out().contains("1 unit(s) [prod]"), rotated.out());
        Map<String, byte[]> after = everyObject(s3);
        for (Map.Entry<String, byte[]> e : before.entrySet()) {
            if (e.getKey().endsWith(".ctr") || e.getKey().endsWith(".idx")) {
                assertArrayEquals(e.getValue(), after.get(e.getKey()), "not rewritten: " + e.getKey());
            }
        }
        assertFalse(java.util.Arrays.equals(before.get("site1/units/prod/keys"), after.get("site1/units/prod/keys")), "the keys object is");
        KeyException refused = assertThrows(KeyException.class, () -> openUnit(s3, old, "prod"));
        assertTrue(refused.getMessage().contains("wrong key"), refused.getMessage());
        try (DedupStoreEngine engine = open(s3, next)) {
            assertArrayEquals(object, TestObjects.restore(engine.unit("prod"), "a"));
        }
        ConsoleCapture again = ConsoleCapture.run(() -> StoreMain.run("rotate-key", "--config", config.toString(),
                "--new-key-file", newKey.toString()));
        assertEquals(0, again.exit(), "a second run finds the work done: " + again.err());
    }

    /** On moto, in buckets with Object Lock (so versioned): deletions leave versions, which are searched too. */
    @Test
    void noVersionInABucketWithObjectLockHoldsTheMarkerAndRotationLeavesOneKeysObject() throws IOException {
        Path oldKey = dir.resolve("old.key");
        Path newKey = dir.resolve("new.key");
        assertEquals(0, StoreMain.run("new-key", oldKey.toString()));
        assertEquals(0, StoreMain.run("new-key", newKey.toString()));
        Kek old = new KeySource(oldKey, null).load();
        Kek next = new KeySource(newKey, null).load();
        byte[] gone = marked(9, 200_000);
        byte[] kept = marked(10, 100_000);
        S3Settings plain = MotoBuckets.fresh("plain-versions", true, cache());
        S3Settings s3 = MotoBuckets.fresh("sealed-versions", true, cache());
        for (S3Settings bucket : List.of(plain, s3)) {
            try (DedupStoreEngine engine = open(bucket, bucket == plain ? null : old)) {
                StorageUnit unit = engine.unit("prod");
                TestObjects.backup(unit, "gone", gone, 8192, Codec.NONE);
                TestObjects.backup(unit, "kept", kept, 8192, Codec.NONE);
                assertEquals(1, unit.deleteObject("gone", false).objects());
                assertTrue(unit.collectGarbage().chunksRemoved() > 0);
            }
        }
        Map<String, byte[]> plainVersions = everyObject(plain);
        assertTrue(plainVersions.keySet().stream().allMatch(k -> k.contains("@")), "every version listed: " + plainVersions.keySet());
        assertFalse(objectsContaining(plainVersions, MARKER).isEmpty(), "control: the plaintext unit's versions hold the marker");
        assertEquals(List.of(), objectsContaining(everyObject(s3), MARKER));

        Path config = config(s3, oldKey);
        ConsoleCapture rotated = ConsoleCapture.run(() -> StoreMain.run("rotate-key", "--config", config.toString(),
                "--new-key-file", newKey.toString()));
        assertEquals(0, rotated.exit(), rotated.err());
        try (S3Client moto = MotoBuckets.client()) {
            assertEquals(1, MotoBuckets.versions(moto, s3.bucket(), "site1/units/prod/keys").size(),
                    "the earlier keys objects, which the old key opens, are gone");
        }
        assertThrows(KeyException.class, () -> openUnit(s3, old, "prod"));
        try (DedupStoreEngine engine = open(s3, next)) {
            assertArrayEquals(kept, TestObjects.restore(engine.unit("prod"), "kept"));
            assertTrue(engine.unit("prod").verify().ok());
        }
    }

    @Test
    void copyUnitCopiesAnEncryptedDiskUnitIntoAnEncryptedBucketUnit() throws IOException {
        Path key = dir.resolve("store.key");
        assertEquals(0, StoreMain.run("new-key", key.toString()));
        Kek kek = new KeySource(key, null).load();
        byte[] object = marked(8, 150_000);
        Path local = dir.resolve("local");
        try (DedupStoreEngine engine = DedupStoreEngine.open(local, SMALL, kek)) {
            TestObjects.backup(engine.unit("prod"), "a", object, 8192, Codec.NONE);
        }
        S3Settings s3 = TestBuckets.fresh("sealed-copy", cache());
        Path config = config(s3, key);
        ConsoleCapture copied = ConsoleCapture.run(() -> StoreMain.run("copy-unit", "--from", local.toString(), "--unit", "prod",
                "--config", config.toString()));
        assertEquals(0, copied.exit(), copied.err());
        Map<String, byte[]> objects = everyObject(s3);
        assertTrue(objects.containsKey("site1/units/prod/keys"), objects.keySet().toString());
        assertEquals(List.of(), objectsContaining(objects, MARKER));
        try (DedupStoreEngine engine = open(s3, kek)) {
            assertArrayEquals(object, TestObjects.restore(engine.unit("prod"), "a"));
        }
    }

    private Path config(S3Settings s3, Path keyFile) throws IOException {
        Path file = dir.resolve("store-" + System.nanoTime() + ".yaml");
        Files.writeString(file, "port: 0\nmetrics-port: -1\ndata-dir: " + dir.resolve("data") + "\n"
                + (keyFile != null ? "encryption:\n  key-file: " + keyFile + "\n" : "")
                + "storage:\n  type: s3\n  endpoint: " + s3.endpoint() + "\n  bucket: " + s3.bucket()
                + "\n  prefix: site1/\n  path-style: true\n  cache-dir: " + cache() + "\n"
                + "units:\n  prod:\n    users:\n      backup: " + PasswordHash.create("pw".toCharArray(), 1000).encoded() + "\n");
        return file;
    }

    /** {@code gpdedup-store serve} in its own JVM, with the bucket's credentials in its environment; it must stop by itself. */
    private StoreRun.Result serve(Path config) throws Exception {
        return StoreRun.toExit(StoreRun.serve(config, S3Server.IDENTITY, S3Server.CREDENTIAL));
    }
}
