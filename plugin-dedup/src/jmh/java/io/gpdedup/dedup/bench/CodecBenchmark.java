package io.gpdedup.dedup.bench;

import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.codec.EncodedChunk;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Setup;

/**
 * Encoding and decoding one 64 KiB chunk of COPY-text rows with each codec the store knows, as
 * {@link ChunkCodec} does on backup (plugin) and restore (plugin). One op = one chunk; seconds per
 * GiB = time per op × 16384. Single-threaded: per core.
 */
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class CodecBenchmark extends StageBenchmark {
    static final int CHUNK = 64 << 10;

    /** codec:level; the plugin's default is zstd:1. */
    @Param({"none:0", "lz4:0", "zstd:1", "zstd:3", "zstd:-1"})
    public String codec;

    private byte[] raw;
    private ChunkCodec chunkCodec;
    private EncodedChunk encoded;

    @Setup
    public void setUp() {
        String[] c = codec.split(":");
        chunkCodec = ChunkCodec.of(Codec.valueOf(c[0].toUpperCase(java.util.Locale.ROOT)), Integer.parseInt(c[1]));
        raw = CopyTextSample.of(CHUNK, 2);
        encoded = chunkCodec.encode(raw, 0, raw.length);
    }

    @Benchmark
    public EncodedChunk encode() {
        return chunkCodec.encode(raw, 0, raw.length);
    }

    @Benchmark
    public byte[] decode() {
        return ChunkCodec.decode(encoded.codec(), raw.length, encoded.payload(), encoded.length());
    }
}
