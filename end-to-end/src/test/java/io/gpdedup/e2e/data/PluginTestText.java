package io.gpdedup.e2e.data;

import java.util.SplittableRandom;

/**
 * The data of gpbackup's {@code plugins/plugin_test.sh}: random {@code [A-Za-z0-9]} characters and a
 * newline ({@code data} is 1,000 characters, {@code data_large} 1,000,000), here from a fixed seed.
 */
public final class PluginTestText {
    private static final String ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

    private PluginTestText() {
    }

    /** {@code chars} characters followed by {@code '\n'}. */
    public static byte[] generate(long seed, int chars) {
        SplittableRandom random = new SplittableRandom(seed);
        byte[] b = new byte[chars + 1];
        for (int i = 0; i < chars; i++) {
            b[i] = (byte) ALPHABET.charAt(random.nextInt(ALPHABET.length()));
        }
        b[chars] = '\n';
        return b;
    }
}
