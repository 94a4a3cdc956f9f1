package io.gpdedup.bench.report;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.Locale;

/**
 * How the kit writes a number for a person or a file: never {@code -0.0}, never E-notation, never
 * the binary noise of a double ({@code 67.96000000000001}). The figures of the model, the live runs
 * and calibration (tables, CSV cells, spelled-out command lines) go through here; the comparison
 * report ({@code compare}) still formats its own cells.
 */
public final class Figures {
    private Figures() {
    }

    /** {@code v} with {@code decimals} fixed decimals; a value that rounds to zero is "0.0", not "-0.0". */
    public static String fixed(double v, int decimals) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "—";
        }
        String s = String.format(Locale.ROOT, "%." + decimals + "f", v);
        return s.startsWith("-") && s.chars().noneMatch(c -> c >= '1' && c <= '9') ? s.substring(1) : s;
    }

    /** {@code v} to six significant digits, for files and command lines: {@code 67.96}, {@code 0.00033}, {@code 1250000}. */
    public static String plain(double v) {
        return significant(v, 6);
    }

    /**
     * {@code v} to {@code digits} significant digits (whole numbers of more digits rounded to a whole
     * number), without trailing zeros or exponent: {@code 1.765}, {@code 0.00033}, {@code 2594}.
     */
    public static String significant(double v, int digits) {
        if (Double.isNaN(v) || Double.isInfinite(v)) {
            return "—";
        }
        BigDecimal d = new BigDecimal(v);
        d = d.abs().compareTo(BigDecimal.TEN.pow(digits)) >= 0 ? d.setScale(0, RoundingMode.HALF_UP) : d.round(new MathContext(digits));
        return d.signum() == 0 ? "0" : d.stripTrailingZeros().toPlainString();
    }
}
