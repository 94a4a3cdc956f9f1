package io.gpdedup.store.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.store.net.StoreFixture;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The store's own garbage collection: bounded by the maximum delay, and on a schedule. */
@Timeout(60)
class AutoCollectorTest {
    private static final int CHUNK = 64 * 1024;

    @TempDir
    Path dir;

    @Test
    void deletesThatKeepComingAreCollectedWithinTheMaximumDelay() throws Exception {
        // Deletes every 50 ms never leave the 500 ms quiet time: only the 800 ms maximum delay starts the collection.
        GcSchedule schedule = new GcSchedule(Duration.ofMillis(500), Duration.ofMillis(800), Duration.ZERO);
        int objects = 100;
        try (StoreFixture store = StoreFixture.start(dir, c -> c.withGc(schedule), e -> e);
                StoreClient client = store.connectA()) {
            for (int i = 0; i < objects; i++) {
                store(client, "cluster1/backups/20261101/202611011000" + String.format("%02d", i) + "/f", i);
            }
            int deleted = 0;
            while (gcRuns(store) == 0) {
                assertTrue(deleted < objects - 1, "no collection while " + deleted + " deletes came 50 ms apart");
                assertEquals(1, client.deleteObjects("cluster1/backups/20261101/202611011000" + String.format("%02d", deleted) + "/"));
                deleted++;
                Thread.sleep(50);
            }
            assertEquals(objects - deleted, client.stats().objects());
            // A client's gc goes through the same collector and is counted too.
            long runs = gcRuns(store);
            client.gc();
            assertEquals(runs + 1, gcRuns(store));
        }
    }

    @Test
    void anOpenBackupStreamPostponesTheCollectionUntilItEnds() throws Exception {
        GcSchedule schedule = new GcSchedule(Duration.ofMillis(50), Duration.ofHours(1), Duration.ZERO);
        try (StoreFixture store = StoreFixture.start(dir, c -> c.withGc(schedule), e -> e);
                StoreClient client = store.connectA()) {
            store(client, "cluster1/backups/20261101/20261101100000/f", 1);
            BackupSession running = client.beginBackup();
            assertEquals(1, client.deleteObjects("cluster1/backups/20261101/"));
            // Twenty quiet times pass with the stream open: the collection waits.
            Thread.sleep(1_000);
            assertEquals(0, gcRuns(store));
            running.close();
            awaitGcRuns(store, 1);
        }
    }

    @Test
    void anIntervalCollectsEveryUnitWithoutDeletes() throws Exception {
        GcSchedule schedule = new GcSchedule(Duration.ZERO, Duration.ZERO, Duration.ofMillis(100));
        try (StoreFixture store = StoreFixture.start(dir, c -> c.withGc(schedule), e -> e);
                StoreClient client = store.connectA()) {
            store(client, "cluster1/backups/20261101/20261101100000/f", 1);
            awaitGcRuns(store, 3);
            assertEquals(1, client.stats().objects());
        }
    }

    /** One object of one random chunk. */
    private static void store(StoreClient client, String name, long seed) {
        byte[] raw = new byte[CHUNK];
        new Random(seed).nextBytes(raw);
        Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
        try (BackupSession s = client.beginBackup()) {
            s.put(List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw))).join();
            s.commit(name, new Recipe(List.of(new ChunkRef(fp, raw.length)), raw.length, Fingerprint.compute(raw, 0, raw.length).toBytes())).join();
        }
    }

    /** Waits until the store counted {@code n} collections; the test's timeout bounds the wait. */
    private static void awaitGcRuns(StoreFixture store, int n) throws InterruptedException {
        while (gcRuns(store) < n) {
            Thread.sleep(50);
        }
    }

    private static long gcRuns(StoreFixture store) {
        Matcher m = Pattern.compile("(?m)^gpdedup_store_gc_runs_total (\\S+)$").matcher(store.service.metrics().scrape());
        assertTrue(m.find());
        return (long) Double.parseDouble(m.group(1));
    }
}
