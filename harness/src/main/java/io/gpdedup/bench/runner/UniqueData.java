package io.gpdedup.bench.runner;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.SplittableRandom;

/**
 * Incompressible bytes no other stream shares, as the published tests used ("random binary data"):
 * every chunk is new to the store and nothing compresses, so the store's throttle sees pure
 * transfer. Each stream has its own seed; the same seed gives the same bytes.
 */
final class UniqueData {
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private final SplittableRandom random;

    UniqueData(long seed) {
        this.random = new SplittableRandom(seed);
    }

    /** A seed for stream {@code stream} of run {@code run}, distinct from every other pair's. */
    public static long seed(long run, long stream) {
        return run * 0x9E3779B97F4A7C15L ^ (stream + 1) * 0xC2B2AE3D27D4EB4FL;
    }

    public void fill(byte[] buf, int off, int len) {
        int i = off;
        int end = off + len;
        for (; i + 8 <= end; i += 8) {
            LONGS.set(buf, i, random.nextLong());
        }
        if (i < end) {
            long last = random.nextLong();
            for (; i < end; i++) {
                buf[i] = (byte) last;
                last >>>= 8;
            }
        }
    }
}
