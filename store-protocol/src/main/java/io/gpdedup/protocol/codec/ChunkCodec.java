package io.gpdedup.protocol.codec;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import io.gpdedup.protocol.codec.Codec;
import java.util.Arrays;
import net.jpountz.lz4.LZ4Compressor;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Encodes chunks with one codec and level; a chunk that does not shrink is kept raw (codec NONE),
 * so incompressible data costs no decode time on restore. Thread-safe: zstd contexts are per thread.
 */
public final class ChunkCodec {
    /** Loaded on first use: lz4-java unpacks a native library, which a zstd or empty stream never needs. */
    private static final class Lz4 {
        static final LZ4Factory FACTORY = LZ4Factory.fastestInstance();
        static final LZ4SafeDecompressor DECODER = FACTORY.safeDecompressor();
    }

    private final Codec codec;
    private final int level;
    private final ThreadLocal<ZstdCompressCtx> zstd;
    private final LZ4Compressor lz4;
    /**
     * Per thread, the compressor's output before it is trimmed: a chunk then costs one allocation of
     * its compressed size instead of a worst-case buffer plus a trimmed copy, which for a first
     * backup halves the garbage the collector has to walk past the chunks in flight.
     */
    private static final ThreadLocal<byte[][]> SCRATCH = ThreadLocal.withInitial(() -> new byte[1][0]);
    /** A decompression context per thread: the static one-shot call sets one up per chunk (6% of a restore's CPU). */
    private static final ThreadLocal<ZstdDecompressCtx> ZSTD_DECODER = ThreadLocal.withInitial(ZstdDecompressCtx::new);

    private ChunkCodec(Codec codec, int level) {
        this.codec = codec;
        this.level = level;
        this.zstd = codec == Codec.ZSTD ? ThreadLocal.withInitial(() -> new ZstdCompressCtx().setLevel(level)) : null;
        this.lz4 = codec == Codec.LZ4 ? Lz4.FACTORY.fastCompressor() : null;
    }

    /** {@code level} applies to zstd (1..19; negative levels are zstd's fast modes); ignored otherwise. */
    public static ChunkCodec of(Codec codec, int level) {
        if (codec == Codec.ZSTD && (level < -7 || level > 19 || level == 0)) {
            throw new IllegalArgumentException("zstd level must be between -7 and 19 (not 0), got " + level);
        }
        return new ChunkCodec(codec, level);
    }

    public Codec codec() {
        return codec;
    }

    public int level() {
        return level;
    }

    public EncodedChunk encode(byte[] raw, int off, int len) {
        EncodedChunk compressed = compress(raw, off, len);
        if (compressed != null) {
            return compressed;
        }
        byte[] copy = new byte[len];
        System.arraycopy(raw, off, copy, 0, len);
        return new EncodedChunk(Codec.NONE, copy, len);
    }

    /**
     * The chunk in this codec, or null when it stays raw (codec NONE, or it does not shrink): a
     * caller that keeps the raw bytes anyway can then send them without a copy.
     */
    public EncodedChunk compress(byte[] raw, int off, int len) {
        switch (codec) {
            case ZSTD: {
                byte[] out = scratch((int) Zstd.compressBound(len));
                int n = zstd.get().compressByteArray(out, 0, out.length, raw, off, len);
                return n < len ? new EncodedChunk(Codec.ZSTD, Arrays.copyOf(out, n), n) : null;
            }
            case LZ4: {
                byte[] out = scratch(lz4.maxCompressedLength(len));
                int n = lz4.compress(raw, off, len, out, 0, out.length);
                return n < len ? new EncodedChunk(Codec.LZ4, Arrays.copyOf(out, n), n) : null;
            }
            default:
                return null;
        }
    }

    private static byte[] scratch(int bytes) {
        byte[][] holder = SCRATCH.get();
        if (holder[0].length < bytes) {
            holder[0] = new byte[bytes];
        }
        return holder[0];
    }

    /** The raw chunk; throws {@link CorruptChunkException} unless the payload decodes to exactly {@code rawLength} bytes. */
    public static byte[] decode(Codec codec, int rawLength, byte[] payload, int payloadLength) {
        switch (codec) {
            case NONE: {
                if (payloadLength != rawLength) {
                    throw new CorruptChunkException("uncompressed chunk has " + payloadLength + " bytes, not " + rawLength);
                }
                if (payload.length == rawLength) {
                    return payload;
                }
                byte[] out = new byte[rawLength];
                System.arraycopy(payload, 0, out, 0, rawLength);
                return out;
            }
            case LZ4: {
                byte[] out = new byte[rawLength];
                int n;
                try {
                    n = Lz4.DECODER.decompress(payload, 0, payloadLength, out, 0, rawLength);
                } catch (LZ4Exception e) {
                    throw new CorruptChunkException("LZ4 chunk does not decode to " + rawLength + " bytes: " + e.getMessage());
                }
                if (n != rawLength) {
                    throw new CorruptChunkException("LZ4 chunk decodes to " + n + " bytes, not " + rawLength);
                }
                return out;
            }
            case ZSTD: {
                byte[] out = new byte[rawLength];
                int n;
                try {
                    n = ZSTD_DECODER.get().decompressByteArray(out, 0, rawLength, payload, 0, payloadLength);
                } catch (RuntimeException e) {
                    ZSTD_DECODER.remove(); // a fresh context for the next chunk, whatever state this one was left in
                    throw new CorruptChunkException("zstd chunk does not decode to " + rawLength + " bytes: " + e.getMessage());
                }
                if (n != rawLength) {
                    throw new CorruptChunkException("zstd chunk decodes to " + n + " bytes, not " + rawLength);
                }
                return out;
            }
            default:
                throw new CorruptChunkException("unknown codec " + codec);
        }
    }

    public static byte[] decode(Codec codec, int rawLength, byte[] payload) {
        return decode(codec, rawLength, payload, payload.length);
    }
}
