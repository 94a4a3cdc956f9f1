package io.gpdedup.bench.model;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;

/**
 * A data size in the reference's units, where MB = 2<sup>20</sup> bytes as in the published
 * figures and the appliance profile: {@code 1GB}, {@code 256MB}, {@code 200G}, {@code 1.5TB}.
 * Every unit is binary (KB = KiB, ...); no unit means bytes.
 */
public final class ReferenceSize implements ITypeConverter<Long> {
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([kmgt]?)(?:i?b)?");

    public static long parse(String text) {
        Matcher m = SIZE.matcher(text.trim().toLowerCase(Locale.ROOT));
        if (!m.matches()) {
            throw new IllegalArgumentException("not a size: '" + text + "' (e.g. 1GB, 256MB, 200G)");
        }
        int shift = switch (m.group(2)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        double bytes = Double.parseDouble(m.group(1)) * (1L << shift);
        if (bytes < 1 || bytes > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("size out of range: '" + text + "'");
        }
        return Math.round(bytes);
    }

    /** Bytes as {@link #parse} reads them back exactly: in the largest binary unit that divides them ("3TiB", "1536MiB"). */
    public static String exact(long bytes) {
        String[] units = {"TiB", "GiB", "MiB", "KiB"};
        for (int i = 0; i < units.length; i++) {
            long unit = 1L << (40 - 10 * i);
            if (bytes % unit == 0) {
                return bytes / unit + units[i];
            }
        }
        return Long.toString(bytes);
    }

    /** Bytes as MB of the reference (2^20). */
    public static double mb(long bytes) {
        return bytes / (double) (1L << 20);
    }

    @Override
    public Long convert(String value) {
        return parse(value);
    }
}
