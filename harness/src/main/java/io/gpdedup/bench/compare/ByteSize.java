package io.gpdedup.bench.compare;

import io.gpdedup.protocol.naming.Sizes;
import java.util.Locale;

/** Sizes as people type them ({@code 1GiB}, {@code 128M}, {@code 500MB}) and as reports print them. */
public final class ByteSize {
    public static final long KIB = 1L << 10;
    public static final long MIB = 1L << 20;
    public static final long GIB = 1L << 30;

    private ByteSize() {
    }

    /**
     * Bytes in {@code text}: a number with an optional unit. K, M, G, T and KiB, MiB, GiB, TiB are
     * powers of 1024; KB, MB, GB, TB powers of 1000; B or no unit means bytes.
     */
    public static long parse(String text) {
        long bytes;
        try {
            bytes = Sizes.parseDecimalKilo(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("size '" + text + "': expected a number with an optional unit "
                    + "(B, KiB, MiB, GiB, TiB or KB, MB, GB, TB), e.g. 1GiB");
        }
        if (bytes < 1) {
            throw new IllegalArgumentException("size '" + text + "' must be at least 1 byte and below 8 EiB");
        }
        return bytes;
    }

    /** {@code bytes} in the largest binary unit that keeps the number at least 1, e.g. {@code 1.00 GiB}. */
    public static String binary(long bytes) {
        if (bytes < KIB) {
            return bytes + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = bytes;
        int i = -1;
        while (v >= 1024 && i < units.length - 1) {
            v /= 1024;
            i++;
        }
        return String.format(Locale.ROOT, "%.2f %s", v, units[i]);
    }

    /** Decimal megabytes with two decimals, as the issue reports repository growth. */
    public static String megabytes(long bytes) {
        return String.format(Locale.ROOT, "%.2f", bytes / 1e6);
    }

    /** MiB per second for {@code bytes} in {@code nanos}. */
    static double mibPerSecond(long bytes, long nanos) {
        if (nanos <= 0) {
            throw new IllegalArgumentException("a duration must be positive, got " + nanos + " ns");
        }
        return bytes / (double) MIB / (nanos / 1e9);
    }
}
