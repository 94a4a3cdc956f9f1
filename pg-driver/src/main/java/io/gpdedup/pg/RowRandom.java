package io.gpdedup.pg;

/**
 * SplitMix64, reseeded per row so every row is a pure function of its key (no state carried from
 * the rows before it: that is what lets a mutated version regenerate only its own rows). Mutable
 * and reused to keep the generator allocation-free.
 */
public final class RowRandom {
    private static final long GOLDEN = 0x9E3779B97F4A7C15L;
    private long state;

    RowRandom reseed(long seed, long key, long stream) {
        state = mix(mix(mix(seed) + key) + stream);
        return this;
    }

    long nextLong() {
        state += GOLDEN;
        return mix(state);
    }

    /** Uniform in [0, bound) for bound &gt; 0 (multiply-shift; the bias is below 2^-32). */
    int nextInt(int bound) {
        return (int) (((nextLong() >>> 32) * bound) >>> 32);
    }

    /** True with probability {@code perMille}/1000. */
    boolean chance(int perMille) {
        return nextInt(1000) < perMille;
    }

    public static long mix(long z) {
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}
