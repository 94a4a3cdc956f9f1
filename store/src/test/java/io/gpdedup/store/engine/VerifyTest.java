package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.index.ChunkIndex;
import io.gpdedup.store.recipe.ObjectName;
import io.gpdedup.testsupport.Damage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class VerifyTest {
    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(64 << 10);

    @TempDir
    Path dir;

    @Test
    void healthyUnitVerifiesClean() {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            TestObjects.backup(unit, "a", TestObjects.data(1, 50_000, true), 4096, Codec.ZSTD);
            TestObjects.backup(unit, "b", TestObjects.data(1, 50_000, true), 4096, Codec.ZSTD);
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());
            assertEquals(2, v.objectsChecked());
            assertEquals(unit.stats().chunks(), v.chunksChecked());
            assertEquals(unit.stats().physicalBytes(), v.bytesChecked());
        }
    }

    @Test
    void anObjectRecordedWithoutStreamHashIsCheckedByItsChunksAndChunkList() throws IOException {
        byte[] x = TestObjects.data(4, 40_000, false);
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            Recipe hashed;
            try (BackupLease lease = unit.beginBackup()) {
                hashed = TestObjects.upload(lease, x, 4096, Codec.ZSTD);
                lease.commit("unhashed", Recipe.ofChunks(hashed.chunks(), x.length)).join();
            }
            List<ChunkRef> swapped = new ArrayList<>(hashed.chunks());
            Collections.swap(swapped, 0, 1);
            try (BackupLease lease = unit.beginBackup()) {
                lease.commit("reordered", new Recipe(swapped, x.length, null, Recipe.listSha256(hashed.chunks(), x.length))).join();
            }
            assertNull(unit.recipe("unhashed").orElseThrow().streamSha256());
            VerifyReport v = unit.verify();
            assertEquals(List.of("reordered"), v.damagedObjects(), v.toString());

            Fingerprint victim = hashed.chunks().get(3).fingerprint();
            ChunkIndex.Location loc = ((DedupStorageUnit) unit).index().lookup(victim);
            Damage.flipByte(dir.resolve("units/u1/containers/" + Container.fileName(loc.container())), loc.offset() + 45 + 10);
            v = unit.verify();
            assertEquals(List.of("reordered", "unhashed"), v.damagedObjects(), v.toString());
        }
    }

    @Test
    void namesExactlyTheObjectsHitByAFlippedContainerByteOrRecipeByte() throws IOException {
        byte[] shared = TestObjects.data(1, 8192, false);
        byte[] x = TestObjects.data(2, 8192, false);
        byte[] y = TestObjects.data(3, 8192, false);
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            TestObjects.backup(unit, "p/hit-by-chunk", TestObjects.concat(shared, x), 4096, Codec.NONE);
            TestObjects.backup(unit, "p/also-hit-by-chunk", TestObjects.concat(x, y), 4096, Codec.NONE);
            TestObjects.backup(unit, "p/hit-by-recipe", TestObjects.concat(shared, y), 4096, Codec.NONE);
            TestObjects.backup(unit, "p/healthy", TestObjects.concat(shared, shared), 4096, Codec.NONE);

            // flip one payload byte of x's second chunk, which "p/hit-by-chunk" and "p/also-hit-by-chunk" share
            Fingerprint victim = Fingerprint.compute(x, 4096, 4096);
            ChunkIndex.Location loc = ((DedupStorageUnit) unit).index().lookup(victim);
            Damage.flipByte(dir.resolve("units/u1/containers/" + Container.fileName(loc.container())), loc.offset() + 45 + 100);
            Damage.flipByte(dir.resolve("units/u1/recipes/" + ObjectName.fileName("p/hit-by-recipe")), 40);

            VerifyReport v = unit.verify();
            assertFalse(v.ok());
            assertEquals(List.of("p/also-hit-by-chunk", "p/hit-by-chunk", "p/hit-by-recipe"), v.damagedObjects(), v.toString());
            assertTrue(v.problems().stream().anyMatch(p -> p.contains(victim.toString())), v.toString());
            assertThrows(StoreException.class, () -> unit.read(victim));
            assertThrows(StoreException.class, () -> unit.recipe("p/hit-by-recipe"));
            assertArrayEquals(TestObjects.concat(shared, shared), TestObjects.restore(unit, "p/healthy"));
            assertThrows(StoreException.class, unit::collectGarbage, "GC must not guess what a damaged recipe needs");
        }
        // after a restart the damaged recipe is still listed and still named
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            StorageUnit unit = engine.unit("u1");
            assertEquals(4, unit.list("p/").size());
            assertEquals(List.of("p/also-hit-by-chunk", "p/hit-by-chunk", "p/hit-by-recipe"), unit.verify().damagedObjects());
            // deleting the damaged objects lets GC run again
            unit.deleteObjects("p/hit-by-recipe");
            unit.collectGarbage();
            assertArrayEquals(TestObjects.concat(shared, shared), TestObjects.restore(unit, "p/healthy"));
        }
    }

    @Test
    void objectsWhoseContainerWasLostAreReported() throws IOException {
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            TestObjects.backup(engine.unit("u1"), "a", TestObjects.data(1, 8192, false), 4096, Codec.NONE);
            TestObjects.backup(engine.unit("u1"), "b", TestObjects.data(2, 4096, false), 4096, Codec.NONE);
            engine.unit("u1").collectGarbage(); // seals container 1: "c" goes to another container
            TestObjects.backup(engine.unit("u1"), "c", TestObjects.data(3, 4096, false), 4096, Codec.NONE);
        }
        Files.delete(dir.resolve("units/u1/containers/" + Container.fileName(1)));
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir, SMALL)) {
            VerifyReport v = engine.unit("u1").verify();
            assertEquals(List.of("a", "b"), v.damagedObjects(), v.toString());
            assertTrue(v.problems().stream().anyMatch(p -> p.contains("not stored")), v.toString());
        }
    }
}
