package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.testsupport.Tmpfs;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A disk that really fills, with no reserve to stop it first (a 24 MiB tmpfs, needs root): backups
 * until a put fails with the file system's own "No space left on device", then a file takes every
 * byte left. With 0 bytes free, deleting backups and garbage collection still work (containers
 * with nothing live go without copying anything), free space comes back, nothing acknowledged is
 * lost and verify finds nothing wrong, before and after a restart.
 */
@Timeout(120)
class FullDiskCollectionTest {
    private static final long FS_BYTES = 24L << 20;
    private static final int OBJECT_BYTES = 1 << 20;
    private static final int CHUNK = 64 << 10;

    @TempDir
    Path dir;

    @Test
    void deleteAndCollectionWorkWithNoFreeSpace() throws Exception {
        Optional<Tmpfs> mounted = Tmpfs.mount(Files.createDirectories(dir.resolve("fs")), FS_BYTES);
        assumeTrue(mounted.isPresent(), "needs root to mount a tmpfs (mount -t tmpfs): skipped");
        try (Tmpfs fs = mounted.get()) {
            Path data = fs.path().resolve("data");
            EngineSettings settings = EngineSettings.defaults().withContainerSizeBytes(1L << 20).withDiskReserveBytes(0);
            Map<String, byte[]> acknowledged = new LinkedHashMap<>();
            try (DedupStoreEngine engine = DedupStoreEngine.open(data, settings)) {
                StorageUnit unit = engine.unit("u");
                StoreException full = null;
                for (int i = 0; full == null && i < 100; i++) {
                    byte[] bytes = TestObjects.data(i, OBJECT_BYTES, false);
                    try {
                        TestObjects.backup(unit, String.format("b/%02d", i), bytes, CHUNK, Codec.NONE);
                        acknowledged.put(String.format("b/%02d", i), bytes);
                    } catch (StoreException e) {
                        full = e;
                    }
                }
                assertTrue(full != null && full.getMessage().contains("No space left on device"), String.valueOf(full));
                fillUp(fs.path().resolve("filler"));
                assertEquals(0, fs.free(), "bytes free");
                assertEquals(List.copyOf(acknowledged.keySet()), unit.list("").stream().map(ObjectInfo::name).toList());

                int deleted = acknowledged.size() / 2;
                for (int i = 0; i < deleted; i++) {
                    assertTrue(unit.deleteObject(String.format("b/%02d", i)));
                    acknowledged.remove(String.format("b/%02d", i));
                }
                GcReport gc = unit.collectGarbage();
                long freed = fs.free();
                System.out.printf("%d MiB tmpfs, no reserve: %d objects of %d bytes acknowledged, then \"%s\"; with 0 bytes free,"
                        + " %d deleted and gc removed %d chunks, %d containers, %d bytes free after%n", FS_BYTES >> 20,
                        acknowledged.size() + deleted, OBJECT_BYTES, full.getMessage(), deleted, gc.chunksRemoved(), gc.containersRewritten(),
                        freed);
                assertTrue(gc.chunksRemoved() > 0 && freed > OBJECT_BYTES, gc + ", " + freed + " bytes free");
                assertTrue(unit.recipe("b/00").isEmpty(), "a deleted object stays deleted");
                check(unit, acknowledged);

                Files.delete(fs.path().resolve("filler"));
                byte[] fresh = TestObjects.data(500, OBJECT_BYTES, false);
                TestObjects.backup(unit, "fresh", fresh, CHUNK, Codec.NONE);
                acknowledged.put("fresh", fresh);
                check(unit, acknowledged);
            }
            try (DedupStoreEngine engine = DedupStoreEngine.open(data, settings)) {
                check(engine.unit("u"), acknowledged);
            }
        }
    }

    private static void check(StorageUnit unit, Map<String, byte[]> acknowledged) {
        for (var e : acknowledged.entrySet()) {
            assertArrayEquals(e.getValue(), TestObjects.restore(unit, e.getKey()), e.getKey());
        }
        VerifyReport report = unit.verify();
        assertTrue(report.ok(), report.toString());
        assertEquals(acknowledged.size(), report.objectsChecked());
    }

    private static void fillUp(Path file) {
        byte[] block = new byte[64 << 10];
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int i = 0; i < 100_000; i++) {
                out.write(block, 0, block.length);
            }
        } catch (IOException full) {
            // The point: now nothing is left.
        }
        try (OutputStream out = Files.newOutputStream(file, java.nio.file.StandardOpenOption.APPEND)) {
            for (int i = 0; i < 1 << 16; i++) {
                out.write(0);
                out.flush();
            }
        } catch (IOException full) {
            // Down to the last byte.
        }
    }
}
