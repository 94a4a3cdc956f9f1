package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.s3.LeaseHeldException;
import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.store.s3.TestBuckets;
import io.gpdedup.testsupport.FaultProxy;
import io.gpdedup.testsupport.S3Server;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fencing of bucket writes: store A reaches the bucket through a proxy that holds its recipe PUT
 * while A's lease renewals fail, store B takes the unit over once A's lease lapsed and lists it,
 * then the proxy lets the PUT land. A's backup must then be either not acknowledged, or visible to
 * B and kept by B's garbage collection; never acknowledged and invisible.
 */
@Timeout(300)
class S3FencingTest {
    private static final int LEASE_SECONDS = 6;
    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(64 << 10);

    @TempDir
    Path dir;

    private DedupStoreEngine open(S3Settings s3, String name) {
        return DedupStoreEngine.open(dir.resolve(name), SMALL, S3Backend.factory(s3.withCacheDir(dir.resolve(name + "-cache"))));
    }

    @Test
    void aRecipeLandingAfterATakeOverIsNeverAcknowledgedAndInvisible() throws Exception {
        S3Server server = S3Server.shared();
        String bucket = server.newBucket("fence");
        byte[] before = TestObjects.data(1, 200_000, false);
        byte[] late = TestObjects.data(2, 300_000, false);
        boolean acknowledged = false;
        try (FaultProxy proxy = FaultProxy.start(server.port())) {
            S3Settings viaProxy = TestBuckets.at(URI.create(proxy.endpoint()), bucket, dir).withLeaseSeconds(LEASE_SECONDS);
            S3Settings direct = TestBuckets.at(server.endpoint(), bucket, dir).withLeaseSeconds(LEASE_SECONDS);
            try (DedupStoreEngine a = open(viaProxy, "a"); DedupStoreEngine b = open(direct, "b")) {
                StorageUnit ua = a.unit("u1");
                // The control: while the lease is held, a backup is acknowledged.
                TestObjects.backup(ua, "before", before, 4096, Codec.NONE);

                proxy.hold("/recipes/");
                CompletableFuture<Void> backup = CompletableFuture.runAsync(() -> TestObjects.backup(ua, "late", late, 4096, Codec.NONE));
                waitFor(() -> proxy.held() > 0, "the recipe PUT reached the proxy");
                proxy.refuseWrites(true); // A's renewals fail from now on: its lease lapses
                StorageUnit ub = takeOver(b);
                List<String> listedAtTakeOver = names(ub.list(""));
                assertTrue(listedAtTakeOver.contains("before"), listedAtTakeOver.toString());
                assertFalse(listedAtTakeOver.contains("late"), "the held PUT had not landed when B listed: " + listedAtTakeOver);
                proxy.release(); // the PUT lands now, after the take-over

                String outcome;
                try {
                    backup.get(120, TimeUnit.SECONDS);
                    acknowledged = true;
                    outcome = "acknowledged";
                } catch (ExecutionException e) {
                    outcome = e.getCause().getMessage();
                    System.out.println("not acknowledged: " + outcome);
                }
                boolean visible = names(ub.list("")).contains("late");
                assertTrue(!acknowledged || visible, "A acknowledged the backup, but B, which took the unit over, does not list it");
                if (visible) {
                    ub.collectGarbage();
                    assertArrayEquals(late, TestObjects.restore(ub, "late"));
                } else {
                    assertTrue(outcome.contains("lease") && !outcome.contains("Exception"), outcome);
                }
                ub.collectGarbage();
                assertArrayEquals(before, TestObjects.restore(ub, "before"));
                VerifyReport v = ub.verify();
                assertTrue(v.ok(), v.toString());
            }
            // The next store to start lists what is in the bucket: whatever it finds damaged was never acknowledged.
            try (DedupStoreEngine c = open(direct, "c")) {
                StorageUnit uc = c.unit("u1");
                assertArrayEquals(before, TestObjects.restore(uc, "before"));
                VerifyReport v = uc.verify();
                assertFalse(v.damagedObjects().contains("before"), v.toString());
                assertTrue(!acknowledged || !v.damagedObjects().contains("late"), v.toString());
            }
        }
    }

    private static List<String> names(List<ObjectInfo> objects) {
        return objects.stream().map(ObjectInfo::name).toList();
    }

    /** The unit, once its holder's lease has lapsed. */
    private static StorageUnit takeOver(DedupStoreEngine engine) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return engine.unit("u1");
            } catch (LeaseHeldException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(250);
            }
        }
    }

    private static void waitFor(java.util.function.BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting until " + what);
            Thread.sleep(50);
        }
    }
}
