package io.gpdedup.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The read cache against a real S3 server (S3Proxy): what a restore costs in GETs, and what it gets back. */
@Timeout(120)
class ReadCacheTest {
    private static final int SEGMENT = 64 << 10;
    private static final int SEGMENTS = 24;
    private static final int RECORD = 1_000;
    private static final int READERS = 4;

    @TempDir
    Path dir;

    /**
     * Several readers take consecutive batches of records of one container, as the store serves a
     * restore's batches in parallel: each segment is asked of the bucket once, by a read or a
     * prefetch, however many records and readers wanted it before it arrived, and prefetches ask
     * for several at once. Only what is read again goes to the cache disk.
     */
    @Test
    void readersOfAContainerInOrderGetEachSegmentOnce() throws Exception {
        S3Settings s = TestBuckets.fresh("read-cache", dir);
        byte[] container = new byte[SEGMENTS * SEGMENT - 123];
        new Random(3).nextBytes(container);
        try (Bucket bucket = Bucket.open(s); ReadCache cache = ReadCache.open(dir.resolve("cache"), 64L << 20, SEGMENT)) {
            bucket.put("c/1", container);
            ReadCache.Source src = new ReadCache.Source(bucket, "c/1", container.length);
            long before = bucket.counters().of("GetObject");
            readAll(cache, src, container);
            long gets = bucket.counters().of("GetObject") - before;
            assertEquals(SEGMENTS, cache.segmentsFetched(), "segments fetched when " + READERS + " readers read " + SEGMENTS + " in order");
            assertTrue(gets < SEGMENTS, gets + " GETs for " + SEGMENTS + " segments: prefetches fetch several at once");

            assertEquals(0, cache.cachedBytes(), "a segment read once is not written to the cache disk");

            // Read again: the segments no longer in memory are fetched a second time and kept on disk...
            readAll(cache, src, container);
            long again = cache.segmentsFetched() - SEGMENTS;
            assertTrue(again > 0 && again <= SEGMENTS, "segments fetched by a second read: " + again);
            assertTrue(cache.cachedBytes() > (again - 1) * SEGMENT && cache.cachedBytes() <= again * SEGMENT,
                    again + " segments fetched again, " + cache.cachedBytes() + " bytes on disk");
            long getsSoFar = bucket.counters().of("GetObject");
            // ... so a third read costs no GET at all.
            readAll(cache, src, container);
            assertEquals(getsSoFar, bucket.counters().of("GetObject"), "a third read of the same container is served by the cache");
            assertTrue(cache.hits() > cache.misses(), "hits " + cache.hits() + ", misses " + cache.misses());
        }
    }

    /** A cache too small to prefetch into still reads right, one GET per segment missed. */
    @Test
    void aCacheTooSmallToPrefetchReadsEachSegmentWhenItIsNeeded() throws Exception {
        S3Settings s = TestBuckets.fresh("read-cache-small", dir);
        byte[] container = new byte[4 * SEGMENT + 7];
        new Random(4).nextBytes(container);
        try (Bucket bucket = Bucket.open(s); ReadCache cache = ReadCache.open(dir.resolve("cache"), 2L * SEGMENT, SEGMENT)) {
            bucket.put("c/2", container);
            ReadCache.Source src = new ReadCache.Source(bucket, "c/2", container.length);
            long before = bucket.counters().of("GetObject");
            for (int off = 0; off < container.length; off += RECORD) {
                int n = Math.min(RECORD, container.length - off);
                assertArrayEquals(Arrays.copyOfRange(container, off, off + n), cache.read("u", 2, src, off, n));
            }
            assertEquals(5, bucket.counters().of("GetObject") - before);
            assertTrue(cache.cachedBytes() <= 2L * SEGMENT, "cached " + cache.cachedBytes());
        }
    }

    /**
     * Segments prefetched for a reader that takes from its container only now and then, pushed out
     * of memory by a faster reader before it came back, are kept on disk, not fetched again.
     */
    @Test
    void prefetchedSegmentsPushedOutOfMemoryUnreadAreKeptOnDisk() throws Exception {
        S3Settings s = TestBuckets.fresh("read-cache-slow", dir);
        byte[] slow = new byte[3 * SEGMENT];
        byte[] fast = new byte[SEGMENTS * SEGMENT];
        new Random(6).nextBytes(slow);
        new Random(7).nextBytes(fast);
        try (Bucket bucket = Bucket.open(s); ReadCache cache = ReadCache.open(dir.resolve("cache"), 64L << 20, SEGMENT)) {
            bucket.put("c/slow", slow);
            bucket.put("c/fast", fast);
            ReadCache.Source slowSrc = new ReadCache.Source(bucket, "c/slow", slow.length);
            ReadCache.Source fastSrc = new ReadCache.Source(bucket, "c/fast", fast.length);
            assertArrayEquals(Arrays.copyOfRange(slow, 0, RECORD), cache.read("u", 1, slowSrc, 0, RECORD));
            awaitIdle(cache);
            for (int off = 0; off < fast.length; off += RECORD) {
                int n = Math.min(RECORD, fast.length - off);
                assertArrayEquals(Arrays.copyOfRange(fast, off, off + n), cache.read("u", 2, fastSrc, off, n));
            }
            awaitIdle(cache);
            long before = bucket.counters().of("GetObject");
            for (int off = SEGMENT; off < slow.length; off += RECORD) {
                int n = Math.min(RECORD, slow.length - off);
                assertArrayEquals(Arrays.copyOfRange(slow, off, off + n), cache.read("u", 1, slowSrc, off, n));
            }
            assertEquals(before, bucket.counters().of("GetObject"), "the slow reader's prefetched segments came from the cache disk");
        }
    }

    private static void awaitIdle(ReadCache cache) throws InterruptedException {
        for (int i = 0; i < 600 && cache.fetchesUnderWay() > 0; i++) {
            Thread.sleep(50);
        }
        assertEquals(0, cache.fetchesUnderWay(), "prefetches still under way after 30 s");
    }

    /** Segments of a container that garbage collection removed are forgotten, in memory and on disk. */
    @Test
    void aDroppedContainerIsReadFromTheBucketAgain() throws Exception {
        S3Settings s = TestBuckets.fresh("read-cache-drop", dir);
        byte[] container = new byte[2 * SEGMENT];
        new Random(5).nextBytes(container);
        try (Bucket bucket = Bucket.open(s); ReadCache cache = ReadCache.open(dir.resolve("cache"), 4L * SEGMENT, SEGMENT)) {
            bucket.put("c/3", container); // (a cache this small prefetches nothing: every GET below is a read's own)
            ReadCache.Source src = new ReadCache.Source(bucket, "c/3", container.length);
            assertArrayEquals(Arrays.copyOfRange(container, 10, 20), cache.read("u", 3, src, 10, 10));
            long before = bucket.counters().of("GetObject");
            assertArrayEquals(Arrays.copyOfRange(container, 30, 40), cache.read("u", 3, src, 30, 10));
            assertEquals(before, bucket.counters().of("GetObject"), "a cached segment costs no GET");
            cache.drop("u", 3);
            assertEquals(0, cache.cachedBytes());
            assertArrayEquals(Arrays.copyOfRange(container, 30, 40), cache.read("u", 3, src, 30, 10));
            assertEquals(before + 1, bucket.counters().of("GetObject"), "after the drop the segment comes from the bucket");
        }
    }

    private static void readAll(ReadCache cache, ReadCache.Source src, byte[] container) throws Exception {
        int records = (container.length + RECORD - 1) / RECORD;
        int batch = 16;
        ExecutorService readers = Executors.newFixedThreadPool(READERS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int r = 0; r < READERS; r++) {
                int reader = r;
                done.add(readers.submit(() -> {
                    for (int first = reader * batch; first < records; first += READERS * batch) {
                        for (int i = first; i < Math.min(records, first + batch); i++) {
                            int off = i * RECORD;
                            int n = Math.min(RECORD, container.length - off);
                            assertArrayEquals(Arrays.copyOfRange(container, off, off + n), cache.read("u", 1, src, off, n), "record " + i);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            readers.shutdownNow();
        }
        // Readers get a segment before it is written to the cache disk: let those writes end before the disk is looked at.
        awaitIdle(cache);
    }
}
