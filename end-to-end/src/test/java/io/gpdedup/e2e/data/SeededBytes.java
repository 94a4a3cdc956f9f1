package io.gpdedup.e2e.data;

import java.io.InputStream;
import java.util.SplittableRandom;

/**
 * {@code length} pseudo-random bytes from a fixed seed, generated as they are read: a 100 MB
 * stream costs no memory, and the same (seed, length) always yields the same bytes.
 */
public final class SeededBytes extends InputStream {
    private final SplittableRandom random;
    private long remaining;
    private long word;
    private int wordLeft;

    public SeededBytes(long seed, long length) {
        this.random = new SplittableRandom(seed);
        this.remaining = length;
    }

    /** The whole stream as an array, for small objects only. */
    public static byte[] array(long seed, int length) {
        byte[] b = new byte[length];
        new SeededBytes(seed, length).read(b, 0, length);
        return b;
    }

    @Override
    public int read() {
        if (remaining == 0) {
            return -1;
        }
        remaining--;
        return next() & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (len == 0) {
            return 0;
        }
        if (remaining == 0) {
            return -1;
        }
        int n = (int) Math.min(len, remaining);
        for (int i = 0; i < n; i++) {
            b[off + i] = next();
        }
        remaining -= n;
        return n;
    }

    private byte next() {
        if (wordLeft == 0) {
            word = random.nextLong();
            wordLeft = 8;
        }
        byte v = (byte) word;
        word >>>= 8;
        wordLeft--;
        return v;
    }
}
