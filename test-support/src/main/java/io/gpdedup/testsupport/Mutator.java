package io.gpdedup.testsupport;

import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Seeded mutations of valid inputs, as a coverage-blind fuzzer does them: bit flips, interesting
 * bytes, truncation, deletion, duplication, splicing with another sample, random lengths written
 * over 4-byte fields. Same seed, same sequence.
 */
public final class Mutator {
    private static final byte[] INTERESTING = {0, 1, 0x7F, (byte) 0x80, (byte) 0xFF, (byte) 0xFE, 0x10, 0x20};

    private final Random random;
    private final List<byte[]> samples;

    public Mutator(long seed, List<byte[]> samples) {
        this.random = new Random(seed);
        this.samples = samples;
    }

    /** A valid sample with one to four mutations applied. */
    public byte[] next() {
        byte[] b = samples.get(random.nextInt(samples.size())).clone();
        int n = 1 + random.nextInt(4);
        for (int i = 0; i < n; i++) {
            b = mutate(b);
        }
        return b;
    }

    private byte[] mutate(byte[] b) {
        if (b.length == 0) {
            return samples.get(random.nextInt(samples.size())).clone();
        }
        switch (random.nextInt(8)) {
            case 0 -> b[random.nextInt(b.length)] ^= (byte) (1 << random.nextInt(8));
            case 1 -> b[random.nextInt(b.length)] = INTERESTING[random.nextInt(INTERESTING.length)];
            case 2 -> b = Arrays.copyOf(b, random.nextInt(b.length));
            case 3 -> {
                int from = random.nextInt(b.length);
                int len = random.nextInt(b.length - from + 1);
                byte[] out = new byte[b.length - len];
                System.arraycopy(b, 0, out, 0, from);
                System.arraycopy(b, from + len, out, from, b.length - from - len);
                b = out;
            }
            case 4 -> {
                int from = random.nextInt(b.length);
                int len = Math.min(b.length - from, 1 + random.nextInt(64));
                byte[] out = new byte[b.length + len];
                System.arraycopy(b, 0, out, 0, from + len);
                System.arraycopy(b, from, out, from + len, b.length - from);
                b = out;
            }
            case 5 -> {
                byte[] other = samples.get(random.nextInt(samples.size()));
                int cut = random.nextInt(b.length + 1);
                int otherCut = random.nextInt(other.length + 1);
                byte[] out = Arrays.copyOf(b, cut + other.length - otherCut);
                System.arraycopy(other, otherCut, out, cut, other.length - otherCut);
                b = out;
            }
            case 6 -> {
                if (b.length >= 4) {
                    int at = random.nextInt(b.length - 3);
                    int v = switch (random.nextInt(4)) {
                        case 0 -> random.nextInt();
                        case 1 -> Integer.MAX_VALUE;
                        case 2 -> -1;
                        default -> random.nextInt(1 << 16);
                    };
                    b[at] = (byte) (v >>> 24);
                    b[at + 1] = (byte) (v >>> 16);
                    b[at + 2] = (byte) (v >>> 8);
                    b[at + 3] = (byte) v;
                }
            }
            default -> {
                byte[] out = Arrays.copyOf(b, b.length + 1 + random.nextInt(16));
                for (int i = b.length; i < out.length; i++) {
                    out[i] = (byte) random.nextInt(256);
                }
                b = out;
            }
        }
        return b;
    }

    /** How many inputs per target: 10^4 in CI, more with -Dgpdedup.fuzz.iterations=N. */
    public static int iterations() {
        return Integer.getInteger("gpdedup.fuzz.iterations", 10_000);
    }
}
