package io.gpdedup.protocol.naming;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Byte sizes as people write them: a number, whole or with decimals, and an optional unit, in any
 * case ({@code 65536}, {@code 64KiB}, {@code 1.5 GiB}, {@code 128M}). K, M, G, T and KiB, MiB, GiB,
 * TiB are powers of 1024; what KB, MB, GB and TB mean is the caller's convention, so there are two
 * entry points: plugin configs and the published reference figures read them as powers of 1024,
 * the store's config and the benchmark's options as powers of 1000.
 */
public final class Sizes {
    private static final Pattern NUMBER = Pattern.compile("[0-9]+(\\.[0-9]+)?");
    private static final BigDecimal MAX = BigDecimal.valueOf(Long.MAX_VALUE);

    private Sizes() {
    }

    /** Bytes in {@code text}, every unit binary ({@code 64KB} = {@code 64KiB}). */
    public static long parse(String text) {
        return parse(text, false);
    }

    /** Bytes in {@code text}, KB, MB, GB, TB being powers of 1000 ({@code 500MB} = 500,000,000). */
    public static long parseDecimalKilo(String text) {
        return parse(text, true);
    }

    private static long parse(String text, boolean decimalKilo) {
        String s = text.trim();
        int i = 0;
        while (i < s.length() && (Character.isDigit(s.charAt(i)) || s.charAt(i) == '.')) {
            i++;
        }
        String number = s.substring(0, i);
        if (!NUMBER.matcher(number).matches()) {
            throw new IllegalArgumentException("expected a size such as 65536, 64KiB or 1MiB");
        }
        String unit = s.substring(i).trim().toUpperCase(Locale.ROOT);
        long scale = switch (unit) {
            case "", "B" -> 1L;
            case "K", "KIB" -> 1L << 10;
            case "M", "MIB" -> 1L << 20;
            case "G", "GIB" -> 1L << 30;
            case "T", "TIB" -> 1L << 40;
            case "KB" -> decimalKilo ? 1_000L : 1L << 10;
            case "MB" -> decimalKilo ? 1_000_000L : 1L << 20;
            case "GB" -> decimalKilo ? 1_000_000_000L : 1L << 30;
            case "TB" -> decimalKilo ? 1_000_000_000_000L : 1L << 40;
            default -> throw new IllegalArgumentException("unknown size unit '" + unit + "' (use B, KiB, MiB, GiB or TiB)");
        };
        BigDecimal bytes = new BigDecimal(number).multiply(BigDecimal.valueOf(scale)).setScale(0, RoundingMode.HALF_UP);
        if (bytes.compareTo(MAX) > 0) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
        return bytes.longValueExact();
    }
}
