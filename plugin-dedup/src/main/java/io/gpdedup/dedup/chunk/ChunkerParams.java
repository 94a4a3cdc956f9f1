package io.gpdedup.dedup.chunk;

/**
 * Minimum, average (target) and maximum chunk size in bytes. Once a storage unit holds data its
 * params must not change, or new backups stop deduplicating against old ones.
 *
 * <p>Bounds: {@code avg} is a power of two in [{@value #MIN_AVG}, {@value #MAX_AVG}];
 * {@value #MIN_MIN} &le; {@code min} &lt; {@code avg} &lt; {@code max} &le; {@value #MAX_MAX}.
 */
public record ChunkerParams(int minSize, int avgSize, int maxSize) {
    static final int MIN_MIN = 64;
    static final int MIN_AVG = 256;
    static final int MAX_AVG = 16 << 20;
    static final int MAX_MAX = 64 << 20;

    /** The default for new storage units; see docs/chunking.md for the study behind it. */
    public static final ChunkerParams DEFAULT = ofAverage(64 << 10);

    public ChunkerParams {
        if (Integer.bitCount(avgSize) != 1 || avgSize < MIN_AVG || avgSize > MAX_AVG) {
            throw new IllegalArgumentException("chunk avg size must be a power of two in [" + MIN_AVG + ", "
                    + MAX_AVG + "], got " + avgSize);
        }
        if (minSize < MIN_MIN || minSize >= avgSize) {
            throw new IllegalArgumentException("chunk min size must be in [" + MIN_MIN + ", avg=" + avgSize
                    + "), got " + minSize);
        }
        if (maxSize <= avgSize || maxSize > MAX_MAX) {
            throw new IllegalArgumentException("chunk max size must be in (avg=" + avgSize + ", " + MAX_MAX
                    + "], got " + maxSize);
        }
    }

    /** min = avg/4, max = avg*4: the usual FastCDC spread. */
    public static ChunkerParams ofAverage(int avgSize) {
        return new ChunkerParams(avgSize / 4, avgSize, avgSize * 4);
    }

    /** log2 of the average size: the number of hash bits the cut rule is centred on. */
    int avgBits() {
        return Integer.numberOfTrailingZeros(avgSize);
    }

    @Override
    public String toString() {
        return minSize + "/" + avgSize + "/" + maxSize;
    }
}
