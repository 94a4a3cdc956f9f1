package io.gpdedup.bench.runner;

import io.gpdedup.bench.report.Figures;
import io.gpdedup.bench.report.ResultTable;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/**
 * What a live run must show to reproduce the published tables: orderings (20 threads beat 10 and
 * 1, 30 fall below 20, 8 hosts share what 4 share) and cells within a tolerance of the published
 * figure after scaling. Printed as a table; a failed check fails the command.
 */
final class ShapeChecks {
    /** Tolerance of a live figure against the published one once scaled back. */
    static final double CELL_TOLERANCE = 0.20;

    private record Check(String what, boolean passed, String detail) {
    }

    private final String title;
    private final List<Check> checks = new ArrayList<>();

    ShapeChecks(String title) {
        this.title = title;
    }

    public void check(String what, boolean passed, String detail) {
        checks.add(new Check(what, passed, detail));
    }

    /** {@code a} beats {@code b} (both MB/s). */
    void greater(String what, double a, double b) {
        check(what, a > b, String.format(java.util.Locale.ROOT, "%.0f vs %.0f MB/s", a, b));
    }

    /** {@code a} within {@code tolerance} of {@code b}, relative to {@code b}. */
    public void close(String what, double a, double b, double tolerance) {
        double err = (a - b) / b;
        check(what, Math.abs(err) <= tolerance, String.format(java.util.Locale.ROOT, "%.0f vs %.0f MB/s (%s%%, limit %.0f%%)",
                a, b, (err > 0 ? "+" : "") + Figures.fixed(err * 100, 1), tolerance * 100));
    }

    public boolean passed() {
        return checks.stream().allMatch(Check::passed);
    }

    public boolean isEmpty() {
        return checks.isEmpty();
    }

    public ResultTable table() {
        ResultTable t = new ResultTable(title, "check", "result", "detail");
        for (Check c : checks) {
            t.add(c.what(), c.passed() ? "ok" : "FAILED", c.detail());
        }
        return t;
    }

    public void print(PrintStream out) {
        if (!checks.isEmpty()) {
            table().print(out);
            out.println(passed() ? "shape: reproduced" : "shape: NOT reproduced");
        }
    }
}
