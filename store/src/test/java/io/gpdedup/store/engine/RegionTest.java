package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.codec.Codec;
import io.gpdedup.store.container.RegionRecord;
import io.gpdedup.store.report.GcReport;
import io.gpdedup.store.report.UnitStats;
import io.gpdedup.store.report.VerifyReport;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Chunks the store's recompression packed into regions: read, collected, rebuilt and verified like any other. */
@Timeout(120)
class RegionTest {
    /** Small containers, regions of 64 KiB: eight 8 KiB chunks each. */
    private static final EngineSettings SETTINGS = EngineSettings.defaults().withContainerSizeBytes(256 << 10).withRegionBytes(64 << 10);

    @TempDir
    Path dir;

    /** Rows no two of which repeat, so that every 8 KiB chunk is new. */
    private static byte[] rows(long seed, int length) {
        Random r = new Random(seed);
        StringBuilder s = new StringBuilder(length + 100);
        for (long i = seed * 1_000_000; s.length() < length; i++) {
            s.append(i).append('\t').append(r.nextInt(1000)).append("\tsome padding text\t").append(r.nextInt(100)).append('\n');
        }
        return s.substring(0, length).getBytes(StandardCharsets.US_ASCII);
    }

    private static void recompress(StorageUnit unit) {
        for (int i = 0; i < 1000; i++) {
            if (unit.recompressNext(3, () -> true).outcome() == Recompression.Outcome.NOTHING_PENDING) {
                return;
            }
        }
        throw new AssertionError("recompression did not settle");
    }

    private List<Path> containerFiles() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(".ctr")).sorted().toList();
        }
    }

    /** Region records found in the container files, counted by their magic at record starts the scanner accepts. */
    private long regionsOnDisk() throws IOException {
        long n = 0;
        for (Path p : containerFiles()) {
            byte[] b = Files.readAllBytes(p);
            for (int i = 0; i + 4 <= b.length; i++) {
                if (ByteBuffer.wrap(b, i, 4).getInt() == RegionRecord.MAGIC) {
                    n++;
                }
            }
        }
        return n;
    }

    @Test
    void recompressionPacksChunksIntoRegionsThatRestoreAndSurviveAnIndexRebuild() throws IOException {
        byte[] a = rows(1, 600_000);
        UnitStats before;
        UnitStats after;
        try (DiskStoreEngine engine = DiskStoreEngine.open(dir, SETTINGS)) {
            StorageUnit unit = engine.unit("u1");
            TestObjects.backup(unit, "a", a, 8192, Codec.LZ4);
            before = unit.stats();
            recompress(unit);
            after = unit.stats();
            assertEquals(before.chunks(), after.chunks());
            assertTrue(after.physicalBytes() < before.physicalBytes() * 0.7, before.physicalBytes() + " -> " + after.physicalBytes());
            assertArrayEquals(a, TestObjects.restore(unit, "a"));
        }
        assertTrue(regionsOnDisk() >= 600_000 / (64 << 10), "regions: " + regionsOnDisk());
        Files.delete(dir.resolve("units/u1/index.snap"));
        try (DiskStoreEngine engine = DiskStoreEngine.open(dir, SETTINGS)) {
            StorageUnit unit = engine.unit("u1");
            assertEquals(after.chunks(), unit.stats().chunks(), "every member is found again by reading the containers");
            assertEquals(after.physicalBytes(), unit.stats().physicalBytes(), "a region's bytes are counted once");
            assertArrayEquals(a, TestObjects.restore(unit, "a"));
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());
        }
    }

    private static byte[] piece(byte[] data, int off) {
        return java.util.Arrays.copyOfRange(data, off, Math.min(off + 16384, data.length));
    }

    @Test
    void garbageCollectionKeepsARegionWithALiveMemberAndReclaimsOnesWithNone() throws IOException {
        byte[] a = rows(2, 400_000);
        byte[] b = rows(3, 400_000);
        int kept = 16384 * 10;
        try (DiskStoreEngine engine = DiskStoreEngine.open(dir, SETTINGS.withGcLiveRatio(0.99))) {
            StorageUnit unit = engine.unit("u1");
            // Alternating 16 KiB pieces of two objects: each region holds chunks of both.
            for (int off = 0; off < a.length; off += 16384) {
                TestObjects.backup(unit, "a/" + off, piece(a, off), 8192, Codec.NONE);
                TestObjects.backup(unit, "b/" + off, piece(b, off), 8192, Codec.NONE);
            }
            recompress(unit);
            long chunks = unit.stats().chunks();
            unit.deleteObjects("a/");
            GcReport gc = unit.collectGarbage();
            assertTrue(gc.containersRewritten() > 0, gc.toString());
            assertEquals(chunks - gc.chunksRemoved(), unit.stats().chunks());
            for (int off = 0; off < b.length; off += 16384) {
                assertArrayEquals(piece(b, off), TestObjects.restore(unit, "b/" + off), "every region held a live chunk of b");
            }
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());

            long physical = unit.stats().physicalBytes();
            for (int off = 0; off < b.length; off += 16384) {
                if (off != kept) {
                    unit.deleteObject("b/" + off);
                }
            }
            gc = unit.collectGarbage();
            assertTrue(unit.stats().physicalBytes() < physical / 4, "regions with no live member go: " + gc + ", "
                    + physical + " -> " + unit.stats().physicalBytes());
            assertArrayEquals(piece(b, kept), TestObjects.restore(unit, "b/" + kept));
        }
        Files.delete(dir.resolve("units/u1/index.snap"));
        try (DiskStoreEngine engine = DiskStoreEngine.open(dir, SETTINGS)) {
            StorageUnit unit = engine.unit("u1");
            assertArrayEquals(piece(b, kept), TestObjects.restore(unit, "b/" + kept));
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());
        }
    }

    @Test
    void aDamagedRegionFailsItsChunksReadsAndVerifyReportsThem() throws IOException {
        byte[] a = rows(4, 200_000);
        try (DiskStoreEngine engine = DiskStoreEngine.open(dir, SETTINGS)) {
            StorageUnit unit = engine.unit("u1");
            TestObjects.backup(unit, "a", a, 8192, Codec.NONE);
            recompress(unit);
            assertTrue(regionsOnDisk() > 0);
        }
        Path first = containerFiles().get(0);
        byte[] bytes = Files.readAllBytes(first);
        int region = -1;
        for (int i = 0; i + 4 <= bytes.length && region < 0; i++) {
            if (ByteBuffer.wrap(bytes, i, 4).getInt() == RegionRecord.MAGIC) {
                region = i;
            }
        }
        assertTrue(region > 0, "a region in " + first);
        try (FileChannel ch = FileChannel.open(first, StandardOpenOption.WRITE)) {
            // Inside the payload, past the fixed header and eight members.
            ch.write(ByteBuffer.wrap(new byte[] {(byte) ~bytes[region + 400]}), region + 400);
        }
        try (DiskStoreEngine engine = DiskStoreEngine.open(dir, SETTINGS)) {
            StorageUnit unit = engine.unit("u1");
            StoreException e = assertThrows(StoreException.class, () -> TestObjects.restore(unit, "a"));
            assertTrue(e.getMessage().contains("is damaged"), e.getMessage());
            VerifyReport v = unit.verify();
            assertFalse(v.ok());
            assertTrue(v.toString().contains("region checksum mismatch"), v.toString());
        }
    }
}
