package io.gpdedup.bench.compare;

import java.util.Locale;

/**
 * One of the targets as a ratio of two measurements.
 *
 * @param what the target in words
 * @param ratio measured gpdedup figure over the reference figure (NaN when a figure is missing)
 * @param bound the required ratio
 * @param rule how the ratio must compare with the bound
 * @param percent print ratios as percentages (for shares of the input) instead of factors
 * @param detail the figures behind the ratio
 */
record Target(String what, double ratio, double bound, Rule rule, boolean percent, String detail) {
    enum Rule {
        AT_LEAST(">="), AT_MOST("<="), BELOW("<");

        final String symbol;

        Rule(String symbol) {
            this.symbol = symbol;
        }
    }

    static Target of(String what, double measured, double reference, Rule rule, double bound, String detail) {
        return new Target(what, measured / reference, bound, rule, false, detail);
    }

    static Target share(String what, double part, double whole, Rule rule, double bound, String detail) {
        return new Target(what, part / whole, bound, rule, true, detail);
    }

    boolean known() {
        return !Double.isNaN(ratio) && !Double.isInfinite(ratio);
    }

    boolean met() {
        return known() && switch (rule) {
            case AT_LEAST -> ratio >= bound;
            case AT_MOST -> ratio <= bound;
            case BELOW -> ratio < bound;
        };
    }

    String required() {
        return rule.symbol + " " + format(bound);
    }

    String measured() {
        return known() ? format(ratio) : "n/a";
    }

    /**
     * The ratio over the bound for "at least", the bound over the ratio otherwise: above 1 is a
     * margin; below 1, its inverse is the factor the measured figure must improve by.
     */
    double margin() {
        return rule == Rule.AT_LEAST ? ratio / bound : bound / ratio;
    }

    String verdict() {
        if (!known()) {
            return "n/a";
        }
        double m = margin();
        String by = Double.isInfinite(m) ? "" : m >= 1 ? String.format(Locale.ROOT, " (%.2fx margin)", m)
                : rule == Rule.AT_LEAST ? String.format(Locale.ROOT, " (needs %.2fx)", 1 / m)
                : String.format(Locale.ROOT, " (%.2fx over)", 1 / m);
        return (met() ? "met" : "MISSED") + by;
    }

    private String format(double r) {
        if (percent) {
            return String.format(Locale.ROOT, r < 0.001 ? "%.4f%%" : "%.2f%%", r * 100);
        }
        return String.format(Locale.ROOT, r < 0.1 ? "%.3fx" : "%.2fx", r);
    }
}
