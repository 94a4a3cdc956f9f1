package io.gpdedup.store.recipe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.RetentionLock;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RecipeFileTest {
    @ParameterizedTest
    @ValueSource(ints = {0, 1, 5, 1000})
    void roundTripsAndDetectsEveryFlippedByte(int chunks) throws Exception {
        roundTrip(chunks, false, RetentionLock.NONE);
        roundTrip(chunks, true, RetentionLock.NONE);
        roundTrip(chunks, false, new RetentionLock(RetentionLock.Mode.GOVERNANCE, 1_800_000_000_000L));
        roundTrip(chunks, true, new RetentionLock(RetentionLock.Mode.COMPLIANCE, 1_900_000_000_123L));
    }

    private static void roundTrip(int chunks, boolean listed, RetentionLock lock) throws Exception {
        Random r = new Random(chunks);
        List<ChunkRef> refs = new ArrayList<>();
        long total = 0;
        for (int i = 0; i < chunks; i++) {
            byte[] fp = new byte[32];
            r.nextBytes(fp);
            int len = 1 + r.nextInt(1 << 20);
            refs.add(new ChunkRef(Fingerprint.of(fp), len));
            total += len;
        }
        byte[] sha = new byte[32];
        r.nextBytes(sha);
        Recipe recipe = listed ? new Recipe(refs, total, sha).withChunkListSha256() : new Recipe(refs, total, sha);
        byte[] bytes = RecipeFile.encode("a/b/ü", 123456789L, recipe, lock);
        // Without a lock or a chunk list digest the file keeps the older layouts, which older stores read.
        String version = lock.mode() != RetentionLock.Mode.NONE ? "GPDRCP03" : listed ? "GPDRCP02" : "GPDRCP01";
        assertEquals(version, new String(bytes, 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
        RecipeFile.Contents back = RecipeFile.decode(bytes);
        assertEquals(lock, back.lock());
        if (listed) {
            assertArrayEquals(Recipe.listSha256(refs, total), back.recipe().chunkListSha256());
            assertTrue(back.recipe().chunkListMatches());
        } else {
            assertNull(back.recipe().chunkListSha256());
        }
        assertEquals("a/b/ü", back.name());
        assertEquals(123456789L, back.committedAtMillis());
        assertEquals(recipe.chunks(), back.recipe().chunks());
        assertEquals(total, back.recipe().totalLength());
        assertArrayEquals(sha, back.recipe().streamSha256());
        for (int i = 0; i < Math.min(bytes.length, 200); i++) {
            byte[] bad = bytes.clone();
            bad[i] ^= 0x04;
            assertThrows(CorruptRecipeException.class, () -> RecipeFile.decode(bad), "flipped byte " + i);
        }
        assertThrows(CorruptRecipeException.class, () -> RecipeFile.decode(java.util.Arrays.copyOf(bytes, bytes.length - 1)));
    }

    @Test
    void aRecipeWithoutStreamHashKeepsItsChunkListDigestAndReadsBackWithoutOne() throws Exception {
        List<ChunkRef> refs = List.of(new ChunkRef(Fingerprint.of(new byte[32]), 10), new ChunkRef(Fingerprint.of(new byte[32]), 5));
        byte[] bytes = RecipeFile.encode("n", 1L, Recipe.ofChunks(refs, 15), RetentionLock.NONE);
        assertEquals("GPDRCP02", new String(bytes, 0, 8, java.nio.charset.StandardCharsets.US_ASCII));
        Recipe back = RecipeFile.decode(bytes).recipe();
        assertNull(back.streamSha256());
        assertTrue(back.chunkListMatches());
        assertEquals(refs, back.chunks());

        // Version 1 has no chunk list digest, so zero bytes there leave nothing to check a restore by.
        byte[] sha = new byte[32];
        java.util.Arrays.fill(sha, (byte) 1);
        byte[] v1 = RecipeFile.encode("n", 1L, new Recipe(refs, 15, sha), RetentionLock.NONE);
        java.util.Arrays.fill(v1, 26 + 1, 58 + 1, (byte) 0);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(v1, 0, v1.length - 4);
        java.nio.ByteBuffer.wrap(v1).putInt(v1.length - 4, (int) crc.getValue());
        assertThrows(CorruptRecipeException.class, () -> RecipeFile.decode(v1));
    }

    @Test
    void theChunkListDigestTellsAReorderedOrChangedListFromTheRecordedOne() {
        Fingerprint a = Fingerprint.of(new byte[32]);
        byte[] b2 = new byte[32];
        b2[0] = 1;
        Fingerprint b = Fingerprint.of(b2);
        Recipe recorded = new Recipe(List.of(new ChunkRef(a, 10), new ChunkRef(b, 20)), 30, b2).withChunkListSha256();
        assertTrue(recorded.chunkListMatches());
        for (List<ChunkRef> other : List.of(List.of(new ChunkRef(b, 20), new ChunkRef(a, 10)), List.of(new ChunkRef(a, 20), new ChunkRef(b, 10)),
                List.of(new ChunkRef(a, 10), new ChunkRef(a, 20)))) {
            Recipe damaged = new Recipe(other, 30, b2, recorded.chunkListSha256());
            assertEquals(false, damaged.chunkListMatches(), other.toString());
        }
        assertEquals(false, new Recipe(List.of(new ChunkRef(a, 10), new ChunkRef(b, 20)), 30, b2).chunkListMatches(),
                "a recipe without a digest proves nothing by it");
    }

    @Test
    void objectNamesAreValidatedAndEncodedOneToOne() {
        for (String bad : new String[] {"", "/", "/a", "a/", "a//b", ".", "..", "a/./b", "a/../b", "x\0y", "\ud800"}) {
            assertThrows(IllegalArgumentException.class, () -> ObjectName.validate(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> ObjectName.validate("x".repeat(1025)));
        String gp = "mydir/backups/20261123/20261123045500/gpbackup_0_20261123045500_16384";
        assertEquals(gp, ObjectName.validate(gp));
        assertEquals("mydir%2Fbackups%2F20261123%2F20261123045500%2Fgpbackup_0_20261123045500_16384.rcp", ObjectName.fileName(gp));
        for (String n : new String[] {gp, "a b", "100%", "ü/ß", ".hidden", "a.rcp", "~x", "a-b_c.d"}) {
            String f = ObjectName.fileName(n);
            assertEquals(n, ObjectName.nameOf(f), f);
            assertTrue(f.matches("[A-Za-z0-9._%~-]+"), f);
        }
        String longName = "d/".repeat(150) + "f";
        String f = ObjectName.fileName(longName);
        assertTrue(f.startsWith("~") && f.length() == 1 + 64 + 4, f);
        assertNull(ObjectName.nameOf(f));
        assertNull(ObjectName.nameOf("a%2.rcp"));
        assertNull(ObjectName.nameOf("a%2f.rcp"), "lower-case escapes are not ours");
    }
}
