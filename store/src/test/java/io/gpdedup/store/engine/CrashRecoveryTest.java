package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.container.Container;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A crash is simulated by copying the data directory of a live engine (what the page cache
 * holds is what a killed process leaves) and then damaging the copy the way a power loss could.
 */
class CrashRecoveryTest {
    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(64 << 10);

    @TempDir
    Path tmp;

    @Test
    void tornTailMissingIndexAndTempFilesAreRepaired() throws IOException {
        Path live = tmp.resolve("live");
        Path crashed = tmp.resolve("crashed");
        byte[] a = TestObjects.data(1, 150_000, false);
        byte[] b = TestObjects.data(2, 90_000, true);
        byte[] c = TestObjects.data(3, 30_000, false);
        try (DedupStoreEngine engine = DedupStoreEngine.open(live, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            TestObjects.backup(unit, "dir/a", a, 4096, Codec.NONE);
            TestObjects.backup(unit, "dir/b", b, 4096, Codec.ZSTD);
            BackupLease inFlight = unit.beginBackup();
            TestObjects.upload(inFlight, c, 4096, Codec.NONE); // uploaded, never committed
            copyTree(live, crashed);
            inFlight.close();
        }
        Path unitDir = crashed.resolve("units/u1");
        Path last = lastContainer(unitDir);
        long size = Files.size(last);
        try (RandomAccessFile f = new RandomAccessFile(last.toFile(), "rw")) {
            f.setLength(size - 1000); // cut the last record (part of "c") in the middle
        }
        Files.deleteIfExists(unitDir.resolve("index.snap"));
        Files.write(unitDir.resolve("recipes/dir%2Fc.rcp.7.tmp"), new byte[] {1, 2, 3});
        Files.write(unitDir.resolve("containers/00000042.ctr.tmp"), new byte[] {4});
        Files.write(unitDir.resolve("index.snap.tmp"), new byte[] {5});
        Files.write(unitDir.resolve("containers/" + Container.fileName(9999)), new byte[] {'G', 'P'}); // created, header never written

        try (DedupStoreEngine engine = DedupStoreEngine.open(crashed, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            assertArrayEquals(a, TestObjects.restore(unit, "dir/a"));
            assertArrayEquals(b, TestObjects.restore(unit, "dir/b"));
            assertEquals(List.of("dir/a", "dir/b"), unit.list("").stream().map(ObjectInfo::name).toList());
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());
            try (Stream<Path> s = Stream.of(unitDir.resolve("recipes"), unitDir.resolve("containers"), unitDir)
                    .flatMap(CrashRecoveryTest::listQuietly)) {
                assertTrue(s.noneMatch(p -> p.toString().endsWith(".tmp")), "temp files removed");
            }
            assertFalse(Files.exists(unitDir.resolve("containers/" + Container.fileName(9999))));
            long cut = Files.size(last);
            assertTrue(cut < size - 1000, "torn record truncated");

            // the torn chunk is missing again, the whole ones before it are present
            byte[] lastChunk = Arrays.copyOfRange(c, 28672, 30000);
            byte[] firstChunk = Arrays.copyOfRange(c, 0, 4096);
            try (BackupLease lease = unit.beginBackup()) {
                boolean[] m = lease.missing(new Fingerprint[] {
                    Fingerprint.compute(firstChunk, 0, firstChunk.length), Fingerprint.compute(lastChunk, 0, lastChunk.length)});
                assertFalse(m[0]);
                assertTrue(m[1]);
            }
            // the store keeps working after recovery
            TestObjects.backup(unit, "dir/c", c, 4096, Codec.NONE);
            assertArrayEquals(c, TestObjects.restore(unit, "dir/c"));
        }
        try (DedupStoreEngine engine = DedupStoreEngine.open(crashed, SMALL)) {
            assertArrayEquals(c, TestObjects.restore(engine.unit("u1"), "dir/c"));
            assertTrue(engine.unit("u1").verify().ok());
        }
    }

    @Test
    void snapshotPlusTailScanAndCorruptSnapshot() throws IOException {
        Path live = tmp.resolve("live");
        byte[] a = TestObjects.data(1, 100_000, false);
        byte[] b = TestObjects.data(2, 100_000, false);
        try (DedupStoreEngine engine = DedupStoreEngine.open(live, SMALL)) {
            TestObjects.backup(engine.unit("u1"), "a", a, 4096, Codec.NONE);
        }
        Path snap = live.resolve("units/u1/index.snap");
        assertTrue(Files.exists(snap), "clean close saves the index");
        Path crashed = tmp.resolve("crashed");
        try (DedupStoreEngine engine = DedupStoreEngine.open(live, SMALL)) {
            TestObjects.backup(engine.unit("u1"), "b", b, 4096, Codec.NONE);
            copyTree(live, crashed); // the snapshot in the copy covers "a" only
        }
        try (DedupStoreEngine engine = DedupStoreEngine.open(crashed, SMALL)) {
            assertArrayEquals(a, TestObjects.restore(engine.unit("u1"), "a"));
            assertArrayEquals(b, TestObjects.restore(engine.unit("u1"), "b"));
            assertEquals(50, engine.unit("u1").stats().chunks());
        }
        // a snapshot with a flipped byte is ignored: full rebuild
        byte[] s = Files.readAllBytes(snap);
        s[s.length / 2] ^= 0x40;
        Files.write(snap, s);
        try (DedupStoreEngine engine = DedupStoreEngine.open(live, SMALL)) {
            assertArrayEquals(a, TestObjects.restore(engine.unit("u1"), "a"));
            assertArrayEquals(b, TestObjects.restore(engine.unit("u1"), "b"));
            assertEquals(50, engine.unit("u1").stats().chunks());
        }
    }

    @Test
    void snapshotNamingAVanishedContainerIsStale() throws IOException {
        Path live = tmp.resolve("live");
        byte[] a = TestObjects.data(1, 200_000, false);
        try (DedupStoreEngine engine = DedupStoreEngine.open(live, SMALL)) {
            TestObjects.backup(engine.unit("u1"), "a", a, 4096, Codec.NONE);
            TestObjects.backup(engine.unit("u1"), "gone", TestObjects.data(2, 200_000, false), 4096, Codec.NONE);
        }
        Path saved = tmp.resolve("snap");
        Files.copy(live.resolve("units/u1/index.snap"), saved);
        try (DedupStoreEngine engine = DedupStoreEngine.open(live, SMALL)) {
            engine.unit("u1").deleteObjects("gone");
            assertTrue(engine.unit("u1").collectGarbage().containersRewritten() > 0);
        }
        // put the pre-GC snapshot back, as if GC's deletion of it had been lost
        Files.copy(saved, live.resolve("units/u1/index.snap"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        try (DedupStoreEngine engine = DedupStoreEngine.open(live, SMALL)) {
            assertArrayEquals(a, TestObjects.restore(engine.unit("u1"), "a"));
            assertTrue(engine.unit("u1").verify().ok());
        }
    }

    static Path lastContainer(Path unitDir) throws IOException {
        try (Stream<Path> s = Files.list(unitDir.resolve("containers"))) {
            return s.filter(p -> p.toString().endsWith(".ctr")).max(Comparator.naturalOrder()).orElseThrow();
        }
    }

    private static Stream<Path> listQuietly(Path dir) {
        try {
            return Files.list(dir).toList().stream();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else if (!p.getFileName().toString().equals("store.lock")) {
                    Files.copy(p, target);
                }
            }
        }
    }
}
