package io.gpdedup.bench.model;

import io.gpdedup.protocol.naming.Sizes;
import picocli.CommandLine.ITypeConverter;

/**
 * A data size in the reference's units, where MB = 2<sup>20</sup> bytes as in the published
 * figures and the appliance profile: {@code 1GB}, {@code 256MB}, {@code 200G}, {@code 1.5TB}.
 * Every unit is binary (KB = KiB, ...); no unit means bytes.
 */
public final class ReferenceSize implements ITypeConverter<Long> {
    public static long parse(String text) {
        long bytes;
        try {
            bytes = Sizes.parse(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a size: '" + text + "' (e.g. 1GB, 256MB, 200G)");
        }
        if (bytes < 1 || bytes > Long.MAX_VALUE / 2) {
            throw new IllegalArgumentException("size out of range: '" + text + "'");
        }
        return bytes;
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
