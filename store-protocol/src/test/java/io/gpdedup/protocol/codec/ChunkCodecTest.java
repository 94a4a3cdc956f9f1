package io.gpdedup.protocol.codec;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ChunkCodecTest {
    private static byte[] text(int n) {
        StringBuilder sb = new StringBuilder();
        Random r = new Random(3);
        while (sb.length() < n) {
            sb.append(r.nextInt(100000)).append("\tcustomer name ").append(r.nextInt(50)).append("\t\\N\n");
        }
        return sb.substring(0, n).getBytes(StandardCharsets.US_ASCII);
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void compressibleChunksShrinkAndRoundTrip(Codec codec) {
        byte[] raw = text(70_000);
        EncodedChunk e = ChunkCodec.of(codec, 3).encode(raw, 0, raw.length);
        if (codec != Codec.NONE) {
            assertEquals(codec, e.codec());
            assertTrue(e.length() < raw.length / 2, "compressed to " + e.length());
        }
        assertArrayEquals(raw, ChunkCodec.decode(e.codec(), raw.length, e.payload(), e.length()));
    }

    @ParameterizedTest
    @EnumSource(Codec.class)
    void incompressibleChunksAreStoredRaw(Codec codec) {
        byte[] raw = new byte[65536];
        new Random(5).nextBytes(raw);
        EncodedChunk e = ChunkCodec.of(codec, 1).encode(raw, 0, raw.length);
        assertEquals(Codec.NONE, e.codec());
        assertArrayEquals(raw, e.exactPayload());
        assertNull(ChunkCodec.of(codec, 1).compress(raw, 0, raw.length), "a chunk that stays raw is left to the caller");
    }

    @ParameterizedTest
    @EnumSource(value = Codec.class, names = {"ZSTD", "LZ4"})
    void compressTakesTheChunkWhereItLies(Codec codec) {
        byte[] stream = text(200_000);
        EncodedChunk e = ChunkCodec.of(codec, 1).compress(stream, 70_001, 65_536);
        assertEquals(codec, e.codec());
        assertArrayEquals(java.util.Arrays.copyOfRange(stream, 70_001, 70_001 + 65_536), ChunkCodec.decode(codec, 65_536, e.exactPayload()));
    }

    @ParameterizedTest
    @EnumSource(value = Codec.class, names = {"ZSTD", "LZ4"})
    void corruptPayloadsAreRejected(Codec codec) {
        byte[] raw = text(50_000);
        EncodedChunk e = ChunkCodec.of(codec, 3).encode(raw, 0, raw.length);
        byte[] bad = e.exactPayload().clone();
        assertThrows(CorruptChunkException.class, () -> ChunkCodec.decode(codec, raw.length + 1, bad));
        byte[] truncated = java.util.Arrays.copyOf(bad, bad.length / 2);
        assertThrows(CorruptChunkException.class, () -> ChunkCodec.decode(codec, raw.length, truncated));
    }
}
