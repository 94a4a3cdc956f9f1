package io.gpdedup.store.index;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.model.Fingerprint;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ChunkIndexTest {
    static Fingerprint random(Random r) {
        byte[] b = new byte[Fingerprint.LENGTH];
        r.nextBytes(b);
        return Fingerprint.of(b);
    }

    /** Random inserts, removals and moves against a HashMap model, through several table growths. */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 42, 1234})
    void behavesLikeAMap(long seed) {
        Random r = new Random(seed);
        ChunkIndex index = new ChunkIndex();
        Map<Fingerprint, long[]> model = new HashMap<>();
        List<Fingerprint> known = new ArrayList<>();
        for (int op = 0; op < 30_000; op++) {
            int kind = r.nextInt(10);
            if (kind < 6 || known.isEmpty()) {
                Fingerprint fp = random(r);
                long[] loc = {1 + r.nextInt(1000), r.nextInt(Integer.MAX_VALUE) * 2L, 49 + r.nextInt(100_000)};
                assertTrue(index.insert(fp, (int) loc[0], loc[1], (int) loc[2]));
                assertFalse(index.insert(fp, 7, 7, 7), "second insert of the same fingerprint is refused");
                model.put(fp, loc);
                known.add(fp);
            } else if (kind < 8) {
                Fingerprint fp = known.remove(r.nextInt(known.size()));
                assertEquals(1, index.removeAll(List.of(fp)));
                model.remove(fp);
                assertNull(index.lookup(fp));
            } else {
                Fingerprint fp = known.get(r.nextInt(known.size()));
                long[] loc = model.get(fp);
                loc[0] = 1 + r.nextInt(1000);
                loc[1] = r.nextInt(1 << 20);
                loc[2] = 1 + r.nextInt(1 << 16);
                assertTrue(index.relocate(fp, (int) loc[0], loc[1], (int) loc[2]));
            }
        }
        assertEquals(model.size(), index.size());
        long bytes = 0;
        for (Map.Entry<Fingerprint, long[]> e : model.entrySet()) {
            ChunkIndex.Location l = index.lookup(e.getKey());
            assertEquals(new ChunkIndex.Location((int) e.getValue()[0], e.getValue()[1], (int) e.getValue()[2]), l);
            bytes += e.getValue()[2];
        }
        assertEquals(bytes, index.recordBytes());
        for (int i = 0; i < 1000; i++) {
            assertFalse(index.contains(random(r)));
        }
    }

    @Test
    void atMostOneHundredBytesPerChunkAtAMillionChunks() {
        Random r = new Random(7);
        ChunkIndex index = new ChunkIndex();
        int n = 1_000_000;
        for (int i = 0; i < n; i++) {
            index.insert(random(r), 1 + i / 256, (i % 256) * 262_193L, 262_193);
        }
        double perChunk = (double) index.memoryBytes() / n;
        System.out.printf("chunk index: %d chunks, %d bytes, %.1f bytes per chunk%n", n, index.memoryBytes(), perChunk);
        assertTrue(perChunk <= 100, "index costs " + perChunk + " bytes per chunk");
    }

    @Test
    void snapshotRoundTripsAndRejectsDamage(@TempDir Path dir) throws Exception {
        Random r = new Random(3);
        ChunkIndex index = new ChunkIndex();
        List<Fingerprint> fps = new ArrayList<>();
        for (int i = 0; i < 5000; i++) {
            Fingerprint fp = random(r);
            fps.add(fp);
            index.insert(fp, 1 + i % 3, 16 + 100L * i, 100);
        }
        Path file = dir.resolve("index.snap");
        IndexSnapshot.write(file, index, Map.of(1, 1_000_000L, 2, 1_000_000L, 3, 1_000_000L));
        IndexSnapshot.Loaded loaded = IndexSnapshot.read(file);
        assertEquals(5000, loaded.index().size());
        assertEquals(Map.of(1, 1_000_000L, 2, 1_000_000L, 3, 1_000_000L), loaded.covered());
        for (int i = 0; i < fps.size(); i++) {
            assertEquals(new ChunkIndex.Location(1 + i % 3, 16 + 100L * i, 100), loaded.index().lookup(fps.get(i)));
        }
        byte[] b = java.nio.file.Files.readAllBytes(file);
        for (int at : new int[] {3, 20, b.length / 2, b.length - 1}) {
            byte[] bad = b.clone();
            bad[at] ^= 0x10;
            java.nio.file.Files.write(file, bad);
            assertNull(IndexSnapshot.read(file), "flipped byte at " + at);
        }
        java.nio.file.Files.write(file, java.util.Arrays.copyOf(b, b.length - 7));
        assertNull(IndexSnapshot.read(file), "truncated");
        assertNull(IndexSnapshot.read(dir.resolve("absent")));
    }

    @Test
    void aSnapshotLargerThanTheReadBufferOverManyContainersRoundTrips(@TempDir Path dir) throws Exception {
        Random r = new Random(5);
        ChunkIndex index = new ChunkIndex();
        List<Fingerprint> fps = new ArrayList<>();
        Map<Integer, Long> covered = new java.util.HashMap<>();
        for (int i = 0; i < 60_000; i++) { // 2.6 MB of entries: the reader refills its buffer mid-entry
            Fingerprint fp = random(r);
            fps.add(fp);
            int container = 1 + (i * 7919) % 3001;
            index.insert(fp, container, 40L + i, 3);
            covered.put(container, 40L + i + 3 + r.nextInt(2));
        }
        Path file = dir.resolve("index.snap");
        IndexSnapshot.write(file, index, covered);
        IndexSnapshot.Loaded loaded = IndexSnapshot.read(file);
        assertEquals(fps.size(), loaded.index().size());
        assertEquals(covered, loaded.covered());
        for (int i = 0; i < fps.size(); i++) {
            assertEquals(new ChunkIndex.Location(1 + (i * 7919) % 3001, 40L + i, 3), loaded.index().lookup(fps.get(i)));
        }
        int[] someContainer = {0};
        covered.keySet().stream().max(Integer::compare).ifPresent(c -> someContainer[0] = c);
        covered.put(someContainer[0], covered.get(someContainer[0]) - 5); // its last record now reaches past what is covered
        IndexSnapshot.write(file, index, covered);
        assertNull(IndexSnapshot.read(file), "an entry beyond its container's covered length");
    }
}
