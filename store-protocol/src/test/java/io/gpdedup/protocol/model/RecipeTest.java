package io.gpdedup.protocol.model;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class RecipeTest {
    private static Fingerprint fp(int b) {
        byte[] x = new byte[Fingerprint.LENGTH];
        x[0] = (byte) b;
        return Fingerprint.of(x);
    }

    private static byte[] sha(int b) {
        byte[] x = new byte[Fingerprint.LENGTH];
        x[5] = (byte) b;
        return x;
    }

    private static final List<ChunkRef> AB = List.of(new ChunkRef(fp(1), 10), new ChunkRef(fp(2), 20));
    private static final List<ChunkRef> BA = List.of(new ChunkRef(fp(2), 20), new ChunkRef(fp(1), 10));

    @Test
    void aRecipeHasAStreamHashOrAChunkListDigestOrBoth() {
        assertThrows(IllegalArgumentException.class, () -> new Recipe(AB, 30, null, null));
        Recipe listedOnly = Recipe.ofChunks(AB, 30);
        assertNull(listedOnly.streamSha256());
        assertTrue(listedOnly.chunkListMatches());
    }

    @Test
    void zeroBytesInTheFixedFieldMeanNoStreamHash() {
        assertArrayEquals(new byte[Fingerprint.LENGTH], Recipe.streamSha256Field(null));
        assertNull(Recipe.streamSha256OfField(new byte[Fingerprint.LENGTH]));
        assertArrayEquals(sha(3), Recipe.streamSha256OfField(Recipe.streamSha256Field(sha(3))));
    }

    @Test
    void sameStreamNeedsTheSameLengthAndTheSameChunksOrTheSameRecordedStreamHash() {
        Recipe listed = Recipe.ofChunks(AB, 30);
        assertTrue(listed.sameStream(Recipe.ofChunks(AB, 30)));
        assertFalse(listed.sameStream(Recipe.ofChunks(BA, 30)), "without stream hashes only the chunk lists can tell");
        assertTrue(new Recipe(AB, 30, sha(1)).sameStream(new Recipe(BA, 30, sha(1))), "the same stream cut another way");
        assertFalse(new Recipe(AB, 30, sha(1)).sameStream(new Recipe(BA, 30, sha(2))));
        assertTrue(new Recipe(AB, 30, sha(1)).sameStream(listed), "one side without a stream hash: the chunk lists decide");
        assertFalse(new Recipe(BA, 30, sha(1)).sameStream(listed));
        assertFalse(listed.sameStream(Recipe.ofChunks(List.of(new ChunkRef(fp(1), 10), new ChunkRef(fp(2), 21)), 31)));
    }
}
