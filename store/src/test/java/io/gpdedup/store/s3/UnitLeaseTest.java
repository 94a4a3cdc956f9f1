package io.gpdedup.store.s3;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.testsupport.FaultProxy;
import io.gpdedup.testsupport.S3Server;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A lease's fencing of writes, against a real S3 server (S3Proxy) behind a proxy that can refuse the renewals. */
@Timeout(120)
class UnitLeaseTest {
    private static final int LEASE_SECONDS = 6;

    @TempDir
    Path dir;

    @Test
    void aWriteIsConfirmedOnlyWhileNoOtherStoreCanHaveTakenTheUnitOver() throws Exception {
        S3Server server = S3Server.shared();
        String name = server.newBucket("lease-fence");
        try (FaultProxy proxy = FaultProxy.start(server.port());
                Bucket bucket = Bucket.open(TestBuckets.at(URI.create(proxy.endpoint()), name, dir).withLeaseSeconds(LEASE_SECONDS))) {
            UnitLease lease = UnitLease.acquire(bucket, "u1", StoreIdentity.of(Files.createDirectories(dir.resolve("a"))), LEASE_SECONDS, false);
            long takes = lease.takes();
            Duration limit = lease.writeLimit();
            assertTrue(!limit.isNegative() && limit.compareTo(Duration.ofSeconds(LEASE_SECONDS)) < 0, "a write's limit: " + limit);
            lease.confirmHeld(takes, "a write just after the take"); // the control: passes

            proxy.refuseWrites(true); // renewals fail from now on
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            BucketException refused = null;
            while (refused == null) {
                assertTrue(System.nanoTime() < deadline, "the lease never stopped covering writes");
                lease.renew();
                try {
                    lease.confirmHeld(takes, "the recipe of x");
                    Thread.sleep(200);
                } catch (BucketException e) {
                    refused = e;
                }
            }
            assertTrue(refused.getMessage().contains("storage unit u1"), refused.getMessage());
            assertThrows(BucketException.class, lease::writeLimit, "no write begins once the lease could lapse");

            Thread.sleep(TimeUnit.SECONDS.toMillis(LEASE_SECONDS)); // still refused: the lease lapses
            proxy.refuseWrites(false);
            while (lease.takes() == takes) {
                assertTrue(System.nanoTime() < deadline, "the lapsed lease was never taken again");
                lease.renew(); // lapsed: taken again as a newcomer would
                Thread.sleep(200);
            }
            BucketException before = assertThrows(BucketException.class, () -> lease.confirmHeld(takes, "the recipe of y"));
            assertTrue(before.getMessage().contains("not acknowledged"), before.getMessage());
            assertFalse(before.getMessage().contains("Exception"), before.getMessage());
            lease.confirmHeld(lease.takes(), "a write begun after the new take"); // passes again
            lease.release();
        }
    }
}
