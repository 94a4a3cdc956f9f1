package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.store.recipe.ObjectName;
import io.gpdedup.store.recipe.ObjectsLockedException;
import io.gpdedup.store.s3.MotoBuckets;
import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Units in a bucket with S3 Object Lock (a real moto server): what a locked commit leaves in the
 * bucket, what the store's own credentials can no longer delete, the extension of shared
 * containers before a later locked commit is acknowledged, and garbage collection beside objects
 * the bucket still holds.
 */
@Timeout(600)
class S3ObjectLockTest {
    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(64 << 10).withReconnectGrace(Duration.ZERO);
    private static final String UNITS = "site1/units/";

    @TempDir
    Path dir;

    private static CommitPolicy governance(int days) {
        return new CommitPolicy(RetentionLock.Mode.GOVERNANCE, days, false);
    }

    private DedupStoreEngine open(S3Settings s3, String name, Map<String, CommitPolicy> locking) {
        return DedupStoreEngine.open(dir.resolve(name), SMALL, S3Backend.factory(s3.withCacheDir(dir.resolve(name + "-cache")), locking));
    }

    private static Recipe backup(StorageUnit unit, String name, byte[] data, CommitPolicy policy) {
        try (BackupLease lease = unit.beginBackup()) {
            Recipe r = TestObjects.upload(lease, data, 4096, Codec.NONE);
            lease.commit(name, r, policy).join();
            return r;
        }
    }

    private static List<String> containerKeys(S3Client raw, String bucket, String unit) {
        return MotoBuckets.keys(raw, bucket, UNITS + unit + "/containers/");
    }

    @Test
    void aLockedObjectsRecipeContainersAndIndexObjectsAreHeldByTheBucketAndAnUnlockedOnesAreNot() throws Exception {
        S3Settings s3 = MotoBuckets.fresh("held", true, dir);
        byte[] data = TestObjects.data(1, 300_000, false);
        long before = System.currentTimeMillis();
        try (DedupStoreEngine engine = open(s3, "a", Map.of("prod", governance(1))); S3Client raw = MotoBuckets.client()) {
            backup(engine.unit("prod"), "db/a", data, governance(1));
            long after = System.currentTimeMillis();
            backup(engine.unit("lab"), "db/a", data, CommitPolicy.UNRESTRICTED);

            String recipe = MotoBuckets.keys(raw, s3.bucket(), UNITS + "prod/recipes/").get(0);
            Instant recipeUntil = MotoBuckets.retainedUntil(raw, s3.bucket(), recipe);
            assertEquals(ObjectLockMode.GOVERNANCE, MotoBuckets.mode(raw, s3.bucket(), recipe));
            assertFalse(recipeUntil.isBefore(Instant.ofEpochMilli(before + TimeUnit.DAYS.toMillis(1))), recipeUntil.toString());
            assertTrue(recipeUntil.isBefore(Instant.ofEpochMilli(after + TimeUnit.DAYS.toMillis(1) + 1000)), recipeUntil.toString());
            List<String> containers = containerKeys(raw, s3.bucket(), "prod");
            assertTrue(containers.size() >= 4 && containers.stream().anyMatch(k -> k.endsWith(".idx")), containers.toString());
            for (String k : containers) {
                assertEquals(ObjectLockMode.GOVERNANCE, MotoBuckets.mode(raw, s3.bucket(), k), k);
                Instant until = MotoBuckets.retainedUntil(raw, s3.bucket(), k);
                assertFalse(until.isBefore(recipeUntil), k + " held until " + until + ", its object until " + recipeUntil);
                assertEquals(0, until.toEpochMilli() % TimeUnit.DAYS.toMillis(1), "containers are held to a UTC midnight: " + until);
            }

            // With the store's own credentials: every version of every locked object refuses to go.
            for (ObjectVersion v : MotoBuckets.versions(raw, s3.bucket(), UNITS + "prod/")) {
                if (v.key().endsWith("/lease") || v.key().endsWith(".snap")) {
                    continue; // rewritten in place, never locked
                }
                S3Exception e = assertThrows(S3Exception.class,
                        () -> raw.deleteObject(b -> b.bucket(s3.bucket()).key(v.key()).versionId(v.versionId())), v.key());
                assertEquals(403, e.statusCode());
            }
            assertArrayEquals(data, TestObjects.restore(engine.unit("prod"), "db/a"));

            // The control: the unlocked unit's objects carry no retention and go.
            List<String> labKeys = containerKeys(raw, s3.bucket(), "lab");
            assertFalse(labKeys.isEmpty());
            for (String k : labKeys) {
                assertNull(MotoBuckets.mode(raw, s3.bucket(), k), k);
            }
            for (ObjectVersion v : MotoBuckets.versions(raw, s3.bucket(), UNITS + "lab/containers/")) {
                raw.deleteObject(b -> b.bucket(s3.bucket()).key(v.key()).versionId(v.versionId()));
            }
            assertTrue(MotoBuckets.versions(raw, s3.bucket(), UNITS + "lab/containers/").isEmpty());
        }
    }

    @Test
    void aLaterLockedCommitExtendsTheContainersItSharesBeforeItIsAcknowledged() throws Exception {
        S3Settings s3 = MotoBuckets.fresh("extend", true, dir);
        byte[] data = TestObjects.data(2, 300_000, false);
        try (S3Client raw = MotoBuckets.client()) {
            try (DedupStoreEngine engine = open(s3, "a", Map.of("prod", governance(1)))) {
                backup(engine.unit("prod"), "db/1", data, governance(1));
            }
            List<String> containers = containerKeys(raw, s3.bucket(), "prod");
            Instant firstUntil = MotoBuckets.retainedUntil(raw, s3.bucket(), containers.get(0));

            // A restart with a longer lock: the held map is empty, so each container's retention is read once, then extended.
            try (DedupStoreEngine engine = open(s3, "b", Map.of("prod", governance(3)))) {
                StorageUnit unit = engine.unit("prod");
                long containersBefore = unit.stats().containers();
                backup(unit, "db/2", data, governance(3));
                assertEquals(containersBefore, unit.stats().containers(), "every chunk deduplicated against db/1");
                String second = UNITS + "prod/recipes/" + ObjectName.fileName("db/2");
                Instant secondUntil = MotoBuckets.retainedUntil(raw, s3.bucket(), second);
                assertTrue(firstUntil.isBefore(secondUntil), "the control: held until " + firstUntil + ", the new lock ends " + secondUntil);
                assertEquals(containers, containerKeys(raw, s3.bucket(), "prod"));
                for (String k : containers) {
                    Instant until = MotoBuckets.retainedUntil(raw, s3.bucket(), k);
                    assertFalse(until.isBefore(secondUntil), k + " held until " + until + ", the object that shares it until " + secondUntil);
                }
                Map<String, Long> requests = ((S3Backend) engine.backend()).requests().snapshot();
                assertEquals(containers.size(), requests.getOrDefault("PutObjectRetention", 0L), requests.toString());

                // A third commit the same day finds them held long enough: no request about them.
                backup(unit, "db/3", data, governance(3));
                Map<String, Long> after = ((S3Backend) engine.backend()).requests().snapshot();
                assertEquals(requests.get("PutObjectRetention"), after.get("PutObjectRetention"), after.toString());
                assertEquals(requests.get("HeadObject"), after.get("HeadObject"), after.toString());
            }
        }
    }

    @Test
    void collectionFreesWhatNoRetentionHoldsAndCountsWhatTheBucketKeeps() throws Exception {
        S3Settings s3 = MotoBuckets.fresh("collect", true, dir);
        try (DedupStoreEngine engine = open(s3, "a", Map.of("prod", governance(1))); S3Client raw = MotoBuckets.client()) {
            S3Backend backend = (S3Backend) engine.backend();
            StorageUnit lab = engine.unit("lab");
            backup(lab, "db/x", TestObjects.data(3, 200_000, false), CommitPolicy.UNRESTRICTED);
            lab.deleteObject("db/x", false);
            GcReport labGc = lab.collectGarbage();
            assertTrue(labGc.bytesReclaimed() > 200_000, labGc.toString());
            assertTrue(MotoBuckets.versions(raw, s3.bucket(), UNITS + "lab/containers/").isEmpty(), "freed, not hidden behind markers");
            assertEquals(0, backend.requests().retainedDeletes());

            // A locked unit's backup that never committed: its full containers went up held, and stay.
            StorageUnit prod = engine.unit("prod");
            try (BackupLease lease = prod.beginBackup()) {
                TestObjects.upload(lease, TestObjects.data(4, 300_000, false), 4096, Codec.NONE);
            }
            GcReport prodGc = prod.collectGarbage();
            List<String> held = containerKeys(raw, s3.bucket(), "prod");
            assertTrue(held.size() >= 8, held.toString());
            assertEquals(held.size() / 2, backend.requests().retainedDeletes(), "each container counted once: " + held);
            assertEquals(0, prodGc.containersRewritten(), prodGc.toString());
            assertEquals(0, prodGc.bytesReclaimed(), prodGc.toString());
            assertEquals(held.size() / 2, prod.stats().containers(), "still listed, for a later collection");

            // A governance-locked object an admin deletes through the store: the bucket asked to bypass too.
            backup(prod, "db/y", TestObjects.data(5, 100_000, false), governance(1));
            assertThrows(ObjectsLockedException.class, () -> prod.deleteObject("db/y", false));
            assertEquals(1, prod.deleteObject("db/y", true).objects());
            assertTrue(MotoBuckets.keys(raw, s3.bucket(), UNITS + "prod/recipes/").isEmpty());
            long keptBefore = backend.requests().retainedDeletes();
            GcReport again = prod.collectGarbage();
            assertTrue(backend.requests().retainedDeletes() > keptBefore, again.toString());
            assertTrue(containerKeys(raw, s3.bucket(), "prod").containsAll(held));
            assertEquals(0, prod.list("").size());
        }
    }
}
