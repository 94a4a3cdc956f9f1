package io.gpdedup.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.model.RetentionLock;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;

/**
 * S3 Object Lock through {@link Bucket} against a real server that has it (moto), and two that do
 * not (a moto bucket made without it, and S3Proxy): the check, locked writes, extension, and
 * deletions of versions refused while their retention holds.
 */
@Timeout(300)
class BucketLocksTest {
    @TempDir
    Path dir;

    @Test
    void onlyABucketMadeWithObjectLockHasIt() throws Exception {
        try (Bucket locked = Bucket.open(MotoBuckets.fresh("lock-on", true, dir));
                Bucket plain = Bucket.open(MotoBuckets.fresh("lock-off", false, dir));
                Bucket proxy = Bucket.open(TestBuckets.fresh("lock-proxy", dir))) {
            assertTrue(locked.locks().enabled());
            assertFalse(plain.locks().enabled());
            assertFalse(proxy.locks().enabled());
            assertEquals(3, locked.counters().of("GetObjectLockConfiguration") + plain.counters().of("GetObjectLockConfiguration")
                    + proxy.counters().of("GetObjectLockConfiguration"));
            locked.locks().enabled();
            assertEquals(1, locked.counters().of("GetObjectLockConfiguration"), "asked once");
        }
    }

    @Test
    void aLockedObjectIsKeptByTheBucketAndAnUnlockedOneIsFreedWhole() throws Exception {
        S3Settings s3 = MotoBuckets.fresh("lock-delete", true, dir);
        long until = System.currentTimeMillis() + TimeUnit.DAYS.toMillis(1) + 123;
        RetentionLock lock = new RetentionLock(RetentionLock.Mode.GOVERNANCE, until);
        try (Bucket bucket = Bucket.open(s3); S3Client raw = MotoBuckets.client()) {
            assertTrue(bucket.locks().enabled());
            bucket.put("held", new byte[] {1, 2, 3}, lock);
            bucket.put("free", new byte[] {4});
            bucket.put("free", new byte[] {5}); // a second version
            assertEquals(ObjectLockMode.GOVERNANCE, MotoBuckets.mode(raw, s3.bucket(), "site1/held"));
            assertEquals(Instant.ofEpochSecond((until + 999) / 1000), MotoBuckets.retainedUntil(raw, s3.bucket(), "site1/held"),
                    "to the second, never earlier");
            assertEquals(RetentionLock.Mode.GOVERNANCE, bucket.locks().of("held", null).mode());
            assertEquals(RetentionLock.NONE, bucket.locks().of("free", null));

            List<String> kept = bucket.deleteAll(List.of("held", "free"));
            assertEquals(List.of("held"), kept);
            assertEquals(2, bucket.counters().of("ListObjectVersions"), bucket.counters().snapshot().toString());
            assertEquals(3, bucket.counters().of("DeleteObject"), "each version of free, the one of held: " + bucket.counters().snapshot());
            assertEquals(1, bucket.counters().retainedDeletes());
            assertArrayEquals(new byte[] {1, 2, 3}, bucket.get("held").orElseThrow(), "still there, readable");
            assertTrue(bucket.get("free").isEmpty());
            assertTrue(MotoBuckets.versions(raw, s3.bucket(), "site1/free").isEmpty(), "every version deleted, not hidden by a marker");

            RetentionLock longer = new RetentionLock(RetentionLock.Mode.GOVERNANCE, until + TimeUnit.DAYS.toMillis(2));
            bucket.locks().extend("held", longer);
            assertEquals(Instant.ofEpochSecond((longer.untilMillis() + 999) / 1000),
                    MotoBuckets.retainedUntil(raw, s3.bucket(), "site1/held"));
            assertEquals(List.of("held"), bucket.deleteAll(List.of("held")));
        }
    }
}
