package io.gpdedup.protocol.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChunkListTest {
    /** Fingerprints that differ in every byte position a page boundary could mix up. */
    private static ChunkRef ref(int i) {
        byte[] fp = new byte[Fingerprint.LENGTH];
        for (int k = 0; k < fp.length; k += 4) {
            ByteBuffer.wrap(fp, k, 4).putInt(i * 31 + k);
        }
        return new ChunkRef(Fingerprint.of(fp), i % 262_144 + 1);
    }

    private static List<ChunkRef> refs(int n) {
        List<ChunkRef> refs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            refs.add(ref(i));
        }
        return refs;
    }

    @Test
    void holdsEveryEntryInOrderAcrossPages() {
        // Sizes around the 8,192-entry page: empty, within one, exactly one, one past, several.
        for (int n : new int[] {0, 1, 8191, 8192, 8193, 3 * 8192 + 17}) {
            List<ChunkRef> expected = refs(n);
            ChunkList list = ChunkList.copyOf(expected);
            assertEquals(n, list.size());
            assertEquals(expected, list, "n=" + n);
            assertEquals(expected.hashCode(), list.hashCode());
            assertEquals(expected.subList(n / 2, n), list.subList(n / 2, n));
        }
    }

    @Test
    void entriesAddedFromPackedBytesEqualThoseAddedAsFingerprints() {
        List<ChunkRef> expected = refs(9000);
        byte[] packed = new byte[4 + expected.size() * Fingerprint.LENGTH];
        ChunkList.Builder b = new ChunkList.Builder();
        for (int i = 0; i < expected.size(); i++) {
            expected.get(i).fingerprint().copyTo(packed, 4 + i * Fingerprint.LENGTH);
            b.add(packed, 4 + i * Fingerprint.LENGTH, expected.get(i).length());
        }
        assertEquals(expected, b.build());
    }

    @Test
    void adoptedPagesOfAnySizeMixWithAddedEntries() {
        List<ChunkRef> expected = refs(20_000);
        ChunkList.Builder b = new ChunkList.Builder();
        int at = 0;
        // Single entries, then pages of 1, 64, 0 and 9,000 entries (the last larger than an added page), then entries again.
        for (int n : new int[] {5, -1, -64, 0, -9000, 100, -3}) {
            if (n >= 0) {
                for (int k = 0; k < n; k++, at++) {
                    b.add(expected.get(at).fingerprint(), expected.get(at).length());
                }
            } else {
                int count = n == -64 ? 64 : -n;
                byte[] fps = new byte[count * Fingerprint.LENGTH + 7];
                int[] lengths = new int[count + 2];
                for (int k = 0; k < count; k++) {
                    expected.get(at + k).fingerprint().copyTo(fps, k * Fingerprint.LENGTH);
                    lengths[k] = expected.get(at + k).length();
                }
                b.adopt(fps, lengths, count);
                at += count;
            }
        }
        b.adopt(new byte[0], new int[0], 0);
        ChunkList list = b.build();
        assertEquals(expected.subList(0, at), list);
        for (int i = 0; i < at; i++) {
            assertEquals(expected.get(i), list.get(i), "entry " + i);
        }
        assertThrows(IndexOutOfBoundsException.class, () -> new ChunkList.Builder().adopt(new byte[Fingerprint.LENGTH], new int[2], 2));
    }

    @Test
    void aBuiltListDoesNotChangeWhenItsBuilderGoesOn() {
        ChunkList.Builder b = new ChunkList.Builder();
        b.add(ref(0).fingerprint(), 10);
        ChunkList first = b.build();
        b.add(ref(1).fingerprint(), 20);
        assertEquals(List.of(new ChunkRef(ref(0).fingerprint(), 10)), first);
        assertEquals(2, b.build().size());
    }

    @Test
    void isImmutableAndCopiedOnlyWhenItIsNotOneAlready() {
        ChunkList list = ChunkList.copyOf(refs(3));
        assertSame(list, ChunkList.copyOf(list));
        assertThrows(UnsupportedOperationException.class, () -> list.add(ref(9)));
        assertThrows(UnsupportedOperationException.class, () -> list.set(0, ref(9)));
        assertThrows(IndexOutOfBoundsException.class, () -> list.get(3));
        assertThrows(IndexOutOfBoundsException.class, () -> new ChunkList.Builder().add(new byte[40], 9, 1));
        assertThrows(NullPointerException.class, () -> ChunkList.copyOf(java.util.Arrays.asList(ref(0), null)));
    }

    @Test
    void aRecipeKeepsItsChunksAsAChunkList() {
        List<ChunkRef> refs = refs(5);
        long total = refs.stream().mapToLong(ChunkRef::length).sum();
        Recipe r = Recipe.ofChunks(refs, total);
        assertTrue(r.chunks() instanceof ChunkList);
        assertEquals(refs, r.chunks());
        assertArrayEquals(Recipe.listSha256(refs, total), r.chunkListSha256());
    }
}
