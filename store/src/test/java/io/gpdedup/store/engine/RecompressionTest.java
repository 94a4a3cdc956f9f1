package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.s3.S3Settings;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(120)
class RecompressionTest {
    /** Opens the engine every scenario runs on: {@link EncryptedRecompressionTest} runs them all again on encrypted units. */
    DedupStoreEngine open(Path dataDir, EngineSettings settings) {
        return DedupStoreEngine.open(dataDir, settings);
    }

    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(64 << 10);
    /** Room for a 1 MiB object in one container. */
    private static final EngineSettings ONE_CONTAINER = EngineSettings.defaults().withContainerSizeBytes(4 << 20);
    private static final int LEVEL = 9;

    @TempDir
    Path dir;

    /** COPY-text-like rows: what a backup stream holds, and what zstd shrinks well. */
    private static byte[] rows(long seed, int length) {
        Random r = new Random(seed);
        StringBuilder s = new StringBuilder(length + 100);
        while (s.length() < length) {
            s.append(r.nextInt(1_000_000)).append('\t').append("customer-").append(r.nextInt(5000)).append('\t')
                    .append(2000 + r.nextInt(26)).append("-0").append(1 + r.nextInt(9)).append("-1").append(r.nextInt(10))
                    .append('\t').append(r.nextInt(100_000) / 100.0).append("\tstatus_").append(r.nextInt(4)).append('\n');
        }
        return s.substring(0, length).getBytes(StandardCharsets.US_ASCII);
    }

    /** Runs recompression until nothing is pending; returns the steps' outcomes. */
    private static List<Recompression> settle(StorageUnit unit) {
        List<Recompression> steps = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
            Recompression r = unit.recompressNext(LEVEL, () -> true);
            if (r.outcome() == Recompression.Outcome.NOTHING_PENDING) {
                return steps;
            }
            steps.add(r);
        }
        throw new AssertionError("recompression did not settle: " + steps.subList(steps.size() - 5, steps.size()));
    }

    @Test
    void shrinksWhatBackupsWroteAndEveryObjectRestoresBeforeAndAfterAReopen() {
        byte[][] objects = {rows(1, 300_000), rows(2, 200_000), rows(3, 150_000)};
        Codec[] codecs = {Codec.NONE, Codec.LZ4, Codec.ZSTD};
        long before;
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            for (int i = 0; i < objects.length; i++) {
                TestObjects.backup(unit, "db/" + i, objects[i], 8192, codecs[i]);
            }
            UnitStats s = unit.stats();
            before = s.physicalBytes();
            assertTrue(unit.recompressionPending() > 1, "containers written by the backups wait: " + s);
            List<Recompression> steps = settle(unit);
            assertEquals(0, unit.recompressionPending());
            assertTrue(steps.stream().anyMatch(r -> r.outcome() == Recompression.Outcome.REWRITTEN), steps.toString());
            UnitStats after = unit.stats();
            assertEquals(s.chunks(), after.chunks(), "no chunk is lost or added");
            assertTrue(after.physicalBytes() < before * 0.8, "stored " + before + " -> " + after.physicalBytes());
            for (int i = 0; i < objects.length; i++) {
                assertArrayEquals(objects[i], TestObjects.restore(unit, "db/" + i));
            }
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());
            assertEquals(Recompression.Outcome.NOTHING_PENDING, unit.recompressNext(LEVEL, () -> true).outcome());
        }
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            assertTrue(unit.stats().physicalBytes() < before * 0.8, "the smaller copies are what a restart finds");
            assertEquals(0, unit.recompressionPending(), "containers a unit opens with are not revisited");
            for (int i = 0; i < objects.length; i++) {
                assertArrayEquals(objects[i], TestObjects.restore(unit, "db/" + i));
            }
            assertTrue(unit.verify().ok());
        }
    }

    /** One object's container recompressed once: its chunks, its bytes before and after, and how many records were looked at. */
    private record OneContainer(long records, long bytesBefore, long bytesAfter, int polls) {
    }

    /**
     * Backs {@code data} up as 8 KiB chunks into one container of a fresh unit, recompresses it
     * expecting {@code outcome}, checks that the object still restores and verifies, and counts the
     * polls of {@code keepGoing}: one per record looked at, and one before and one after.
     */
    private OneContainer recompressOneObject(byte[] data, Recompression.Outcome outcome) {
        try (DedupStoreEngine engine = open(dir, ONE_CONTAINER)) {
            StorageUnit unit = engine.unit("u1");
            TestObjects.backup(unit, "db/t", data, 8192, Codec.NONE);
            long records = unit.stats().chunks();
            long before = unit.stats().physicalBytes();
            assertTrue(records >= Recompressor.MIN_RECORDS_TO_SAMPLE, "records: " + records);
            AtomicInteger polls = new AtomicInteger();
            Recompression r = unit.recompressNext(LEVEL, () -> {
                polls.incrementAndGet();
                return true;
            });
            assertEquals(outcome, r.outcome(), r.toString());
            assertEquals(Recompression.Outcome.NOTHING_PENDING, unit.recompressNext(LEVEL, () -> true).outcome(), "one container");
            assertEquals(records, unit.stats().chunks());
            assertArrayEquals(data, TestObjects.restore(unit, "db/t"));
            assertTrue(unit.verify().ok());
            return new OneContainer(records, before, unit.stats().physicalBytes(), polls.get());
        }
    }

    @Test
    void aContainerThatWouldNotShrinkIsLeftAfterASampleOfItsRecords() {
        byte[] random = new byte[1 << 20];
        new Random(7).nextBytes(random);
        OneContainer c = recompressOneObject(random, Recompression.Outcome.ALREADY_SMALL);
        assertTrue(c.polls() <= c.records() / Recompressor.SAMPLE_STRIDE + 2, c.polls() + " polls for " + c.records() + " records");
        assertEquals(c.bytesBefore(), c.bytesAfter());
    }

    @Test
    void aContainerWhoseSampleShrinksIsRewrittenWholeEachRecordReencodedOnce() {
        OneContainer c = recompressOneObject(rows(11, 1 << 20), Recompression.Outcome.REWRITTEN);
        assertTrue(c.polls() >= c.records() && c.polls() <= c.records() + 2,
                c.polls() + " polls for " + c.records() + " records: the sample's encodings are kept");
        assertTrue(c.bytesAfter() < c.bytesBefore() / 2, "stored " + c.bytesBefore() + " -> " + c.bytesAfter());
    }

    @Test
    void callersOnSeveralThreadsEachTakeAContainerOfTheirOwn() throws Exception {
        byte[] data = rows(8, 600_000);
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            TestObjects.backup(unit, "a", data, 8192, Codec.NONE);
            int containers = unit.recompressionPending();
            assertTrue(containers > 4, "containers: " + containers);
            ExecutorService pool = Executors.newFixedThreadPool(3);
            List<Future<List<Recompression>>> runs = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    runs.add(pool.submit(() -> settle(unit)));
                }
                List<Integer> rewritten = new ArrayList<>();
                for (Future<List<Recompression>> f : runs) {
                    f.get().stream().filter(r -> r.outcome() == Recompression.Outcome.REWRITTEN).forEach(r -> rewritten.add(r.container()));
                }
                assertEquals(rewritten.size(), rewritten.stream().distinct().count(), "no container is rewritten twice: " + rewritten);
                assertEquals(containers, rewritten.size(), "every container was rewritten once: " + rewritten);
            } finally {
                pool.shutdownNow();
            }
            assertEquals(0, unit.recompressionPending());
            assertArrayEquals(data, TestObjects.restore(unit, "a"));
            assertTrue(unit.verify().ok());
        }
    }

    @Test
    void aBackupBeginningStopsItAndTheContainerWaitsUnchanged() {
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            byte[] data = rows(4, 200_000);
            TestObjects.backup(unit, "a", data, 8192, Codec.NONE);
            UnitStats s = unit.stats();
            int pending = unit.recompressionPending();
            int[] calls = new int[1];
            Recompression r = unit.recompressNext(LEVEL, () -> calls[0]++ < 3);
            assertEquals(Recompression.Outcome.PAUSED, r.outcome());
            assertEquals(pending, unit.recompressionPending());
            assertEquals(s, unit.stats());
            assertFalse(settle(unit).isEmpty());
            assertArrayEquals(data, TestObjects.restore(unit, "a"));
        }
    }

    @Test
    void aFullDiskLeavesTheContainerWaitingAndEveryChunkWhereItWas() throws Exception {
        java.util.Optional<io.gpdedup.testsupport.Tmpfs> mounted = io.gpdedup.testsupport.Tmpfs.mount(
                Files.createDirectories(dir.resolve("fs")), 8L << 20);
        org.junit.jupiter.api.Assumptions.assumeTrue(mounted.isPresent(), "needs root to mount a tmpfs (mount -t tmpfs): skipped");
        try (io.gpdedup.testsupport.Tmpfs fs = mounted.get();
             DedupStoreEngine engine = open(fs.path().resolve("data"),
                     EngineSettings.defaults().withContainerSizeBytes(1L << 20).withDiskReserveBytes(0))) {
            StorageUnit unit = engine.unit("u1");
            byte[] data = rows(9, 1_500_000);
            TestObjects.backup(unit, "a", data, 8192, Codec.NONE);
            UnitStats s = unit.stats();
            int pending = unit.recompressionPending();
            Path filler = fs.path().resolve("filler");
            byte[] block = new byte[64 << 10];
            try (java.io.OutputStream out = Files.newOutputStream(filler)) {
                for (int i = 0; i < 1000; i++) {
                    out.write(block);
                }
            } catch (java.io.IOException full) {
                // what the filler is for
            }
            Recompression r = unit.recompressNext(LEVEL, () -> true);
            assertEquals(Recompression.Outcome.NO_ROOM, r.outcome(), r.toString());
            assertEquals(pending, unit.recompressionPending(), "the container waits for room");
            assertEquals(s, unit.stats());
            assertArrayEquals(data, TestObjects.restore(unit, "a"));
            Files.delete(filler);
            assertTrue(settle(unit).stream().anyMatch(x -> x.outcome() == Recompression.Outcome.REWRITTEN));
            assertArrayEquals(data, TestObjects.restore(unit, "a"));
            assertTrue(unit.verify().ok());
        }
    }

    @Test
    void aDamagedRecordIsNotReencodedAndVerifyStillFindsIt() throws Exception {
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            TestObjects.backup(unit, "a", rows(5, 40_000), 8192, Codec.NONE); // one container
            Path ctr;
            try (Stream<Path> files = Files.walk(dir)) {
                ctr = files.filter(p -> p.getFileName().toString().endsWith(".ctr")).findFirst().orElseThrow();
            }
            try (FileChannel ch = FileChannel.open(ctr, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {'#'}), Container.HEADER_BYTES + 100); // inside the first record's payload
            }
            Recompression r = unit.recompressNext(LEVEL, () -> true);
            assertEquals(Recompression.Outcome.DAMAGED, r.outcome(), r.toString());
            assertEquals(0, unit.recompressionPending(), "a damaged container is not tried again and again");
            VerifyReport v = unit.verify();
            assertFalse(v.ok(), "the damage is still there for verify to report");
        }
    }

    @Test
    void backupsAndCollectionsRunningMeanwhileLoseNothing() throws Exception {
        Map<String, byte[]> committed = new ConcurrentHashMap<>();
        try (DedupStoreEngine engine = open(dir, SMALL.withGcLiveRatio(0.9))) {
            StorageUnit unit = engine.unit("u1");
            byte[] shared = rows(6, 120_000);
            AtomicBoolean done = new AtomicBoolean();
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                Future<?> backups = pool.submit(() -> {
                    for (int i = 0; i < 40; i++) {
                        byte[] data = TestObjects.concat(shared, rows(100 + i, 30_000));
                        TestObjects.backup(unit, "b/" + i, data, 8192, i % 2 == 0 ? Codec.NONE : Codec.ZSTD);
                        committed.put("b/" + i, data);
                        if (i % 5 == 4) {
                            unit.deleteObjects("b/" + (i - 3));
                            committed.remove("b/" + (i - 3));
                            unit.collectGarbage();
                        }
                    }
                    done.set(true);
                    return null;
                });
                Future<?> recompressing = pool.submit(() -> {
                    while (!done.get()) {
                        unit.recompressNext(LEVEL, () -> true);
                    }
                    return null;
                });
                backups.get();
                recompressing.get();
            } finally {
                pool.shutdownNow();
            }
            settle(unit);
            for (Map.Entry<String, byte[]> e : committed.entrySet()) {
                assertArrayEquals(e.getValue(), TestObjects.restore(unit, e.getKey()), e.getKey());
            }
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());
        }
        try (DedupStoreEngine engine = open(dir, SMALL)) {
            for (Map.Entry<String, byte[]> e : committed.entrySet()) {
                assertArrayEquals(e.getValue(), TestObjects.restore(engine.unit("u1"), e.getKey()), e.getKey());
            }
        }
    }

    @Test
    void inABucketAnotherStoreWithAnEmptyCacheServesTheRecompressedCopies() {
        S3Settings s3 = io.gpdedup.store.s3.TestBuckets.fresh("recompress", dir);
        byte[] data = rows(7, 250_000);
        long before;
        try (DedupStoreEngine a = DedupStoreEngine.open(dir.resolve("a"), SMALL,
                io.gpdedup.store.s3.S3Backend.factory(s3.withCacheDir(dir.resolve("a-cache"))))) {
            StorageUnit unit = a.unit("u1");
            TestObjects.backup(unit, "db/x", data, 8192, Codec.NONE);
            before = unit.stats().physicalBytes();
            assertTrue(settle(unit).stream().anyMatch(r -> r.outcome() == Recompression.Outcome.REWRITTEN));
        }
        try (DedupStoreEngine b = DedupStoreEngine.open(dir.resolve("b"), SMALL,
                io.gpdedup.store.s3.S3Backend.factory(s3.withCacheDir(dir.resolve("b-cache"))))) {
            StorageUnit unit = b.unit("u1");
            assertTrue(unit.stats().physicalBytes() < before * 0.8, before + " -> " + unit.stats().physicalBytes());
            assertArrayEquals(data, TestObjects.restore(unit, "db/x"));
            assertTrue(unit.verify().ok());
        }
    }
}
