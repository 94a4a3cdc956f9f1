package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.store.s3.LeaseHeldException;
import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An engine opened as a standby on a real S3 server (S3Proxy): a unit another engine holds is
 * refused with {@link UnitNotServedException} (an engine without standby still fails with the
 * lease's message), other units are served, and once the holder gives the unit back the standby
 * takes it over by itself and serves what the holder wrote.
 */
@Timeout(300)
class StandbyEngineTest {
    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(64 << 10);

    @TempDir
    Path dir;

    private DedupStoreEngine open(S3Settings s3, String dataDir, boolean standby) {
        return DedupStoreEngine.open(dir.resolve(dataDir), SMALL, S3Backend.factory(s3.withCacheDir(dir.resolve(dataDir + "-cache"))), standby);
    }

    @Test
    void aStandbyRefusesAHeldUnitAndTakesItOverOnceItIsFree() throws Exception {
        S3Settings s3 = io.gpdedup.store.s3.TestBuckets.fresh("standby", dir).withLeaseSeconds(6);
        byte[] data = TestObjects.data(7, 150_000, true);
        DedupStoreEngine a = open(s3, "a", false);
        try (DedupStoreEngine b = open(s3, "b", true)) {
            TestObjects.backup(a.unit("u1"), "x", data, 4096, Codec.ZSTD);
            try (DedupStoreEngine c = open(s3, "c", false)) { // the control: no standby, the held lease fails the open as before
                LeaseHeldException e = assertThrows(LeaseHeldException.class, () -> c.unit("u1"));
                assertTrue(e.getMessage().startsWith("storage unit u1 is served by the store on host "), e.getMessage());
            }
            UnitNotServedException refused = assertThrows(UnitNotServedException.class, () -> b.unit("u1"));
            assertTrue(refused.getMessage().startsWith("storage unit 'u1' is held by the store on host "), refused.getMessage());
            assertTrue(refused.getMessage().contains("this store is its standby"), refused.getMessage());
            assertEquals(1, b.standby().orElseThrow().count());
            TestObjects.backup(b.unit("u2"), "y", data, 4096, Codec.NONE); // a unit nobody holds is served at once
            assertTrue(b.unitNames().contains("u2") && !b.unitNames().contains("u1"), b.unitNames().toString());

            a.close(); // a clean stop gives the lease back: the standby's next look takes the unit
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            StorageUnit taken = null;
            while (taken == null) {
                try {
                    taken = b.unit("u1");
                } catch (UnitNotServedException stillWaiting) {
                    assertTrue(System.nanoTime() < deadline, "the standby never took the unit over: " + stillWaiting.getMessage());
                    Thread.sleep(100);
                }
            }
            assertEquals(0, b.standby().orElseThrow().count());
            assertArrayEquals(data, TestObjects.restore(taken, "x"));
        } finally {
            a.close();
        }
    }
}
