package io.gpdedup.plugin.api;

import java.util.Locale;

/** Byte sizes as written in configs: {@code 65536}, {@code 64KiB}, {@code 64KB}, {@code 1MiB}, {@code 2GB}. Binary units. */
public final class Sizes {
    private Sizes() {
    }

    public static long parse(String text) {
        String s = text.trim().toUpperCase(Locale.ROOT);
        int i = 0;
        while (i < s.length() && Character.isDigit(s.charAt(i))) {
            i++;
        }
        if (i == 0) {
            throw new IllegalArgumentException("expected a size such as 65536, 64KiB or 1MiB");
        }
        long n;
        try {
            n = Long.parseLong(s.substring(0, i));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
        String unit = s.substring(i).trim();
        long mult = switch (unit) {
            case "", "B" -> 1L;
            case "K", "KB", "KIB" -> 1L << 10;
            case "M", "MB", "MIB" -> 1L << 20;
            case "G", "GB", "GIB" -> 1L << 30;
            default -> throw new IllegalArgumentException("unknown size unit '" + unit + "' (use B, KiB, MiB or GiB)");
        };
        if (n > Long.MAX_VALUE / mult) {
            throw new IllegalArgumentException("size '" + text + "' is too large");
        }
        return n * mult;
    }
}
