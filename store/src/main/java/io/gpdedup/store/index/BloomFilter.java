package io.gpdedup.store.index;

/**
 * A Bloom filter keyed by two independent 64-bit words of a fingerprint (SHA-256 output is
 * uniform, so no further hashing is needed). Not thread-safe: {@link ChunkIndex} guards it.
 */
final class BloomFilter {
    private static final int PROBES = 7;
    private final long[] bits;
    private final long numBits;

    BloomFilter(long numBits) {
        long words = Math.max(1, (numBits + 63) >>> 6);
        this.bits = new long[Math.toIntExact(words)];
        this.numBits = words << 6;
    }

    void add(long h1, long h2) {
        long step = h2 | 1;
        for (int i = 0; i < PROBES; i++) {
            long bit = ((h1 + i * step) >>> 1) % numBits;
            bits[(int) (bit >>> 6)] |= 1L << bit;
        }
    }

    boolean mightContain(long h1, long h2) {
        long step = h2 | 1;
        for (int i = 0; i < PROBES; i++) {
            long bit = ((h1 + i * step) >>> 1) % numBits;
            if ((bits[(int) (bit >>> 6)] & (1L << bit)) == 0) {
                return false;
            }
        }
        return true;
    }

    long memoryBytes() {
        return 16L + 8L * bits.length;
    }
}
