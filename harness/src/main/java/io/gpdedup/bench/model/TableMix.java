package io.gpdedup.bench.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The seed's database as table sizes: 31,200 tables, 5% of at least 500 MB (2.4 TiB together),
 * 28% empty, the rest below 500 MB (0.6 TiB together): 3 TiB. Sizes within a class follow a
 * heavy tail (Pareto for the large ones, log-uniform for the small) drawn with a fixed seed and
 * then scaled to the class total, so every run sees the same database.
 */
public final class TableMix {
    /** A table's class in the published mix. */
    public enum Kind { LARGE, SMALL, EMPTY }

    /** One table: its size in bytes (of table data, before COPY's CSV inflation). */
    public record Table(int id, Kind kind, double bytes) {
    }

    public static final double TIB = 1024.0 * 1024 * 1024 * 1024;
    public static final double MIB = 1024.0 * 1024;

    private final List<Table> tables;
    private final java.util.Map<Published.Tables, List<Table>> selections = new java.util.concurrent.ConcurrentHashMap<>();

    private TableMix(List<Table> tables) {
        this.tables = List.copyOf(tables);
    }

    /** The published mix with the given counts and class totals. */
    public static TableMix of(int tables, double largeShare, double emptyShare, double largeBytes, double smallBytes, long seed) {
        int large = (int) Math.round(tables * largeShare);
        int empty = (int) Math.round(tables * emptyShare);
        int small = tables - large - empty;
        if (large < 0 || empty < 0 || small < 0) {
            throw new IllegalArgumentException("table shares do not add up");
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] l = new double[large];
        double[] s = new double[small];
        double threshold = 500 * MIB;
        for (int i = 0; i < large; i++) {
            // Pareto with alpha 1.5 from 500 MB, cut at 200x.
            l[i] = threshold * Math.min(200, Math.pow(1 - rnd.nextDouble(), -1 / 1.5));
        }
        for (int i = 0; i < small; i++) {
            // log-uniform between 64 KB and 500 MB
            s[i] = Math.exp(Math.log(64 * 1024) + rnd.nextDouble() * (Math.log(threshold) - Math.log(64 * 1024)));
        }
        scaleTo(l, largeBytes, threshold, Double.MAX_VALUE);
        scaleTo(s, smallBytes, 0, threshold);
        List<Table> out = new ArrayList<>(tables);
        int id = 0;
        for (double b : l) {
            out.add(new Table(id++, Kind.LARGE, b));
        }
        for (double b : s) {
            out.add(new Table(id++, Kind.SMALL, b));
        }
        for (int i = 0; i < empty; i++) {
            out.add(new Table(id++, Kind.EMPTY, 0));
        }
        return new TableMix(out);
    }

    /** The seed's database (table D): 31,200 tables, 5% large (2.4 TiB), 28% empty, 0.6 TiB small. */
    public static TableMix seed003() {
        return of(31_200, 0.05, 0.28, 2.4 * TIB, 0.6 * TIB, 3);
    }

    public List<Table> tables() {
        return tables;
    }

    /** The tables a run backs up, largest first (the order gpbackup hands them to its workers). */
    public List<Table> select(Published.Tables which) {
        return selections.computeIfAbsent(which, w -> tables.stream()
                .filter(t -> switch (which) {
                    case ALL -> true;
                    case LARGE -> t.kind() == Kind.LARGE;
                    case SMALL -> t.kind() == Kind.SMALL;
                })
                .sorted(Comparator.comparingDouble(Table::bytes).reversed())
                .toList());
    }

    public static double totalBytes(List<Table> tables) {
        return tables.stream().mapToDouble(Table::bytes).sum();
    }

    /** Scales values to sum to total while keeping each within [min, max] (a few rounds suffice). */
    private static void scaleTo(double[] v, double total, double min, double max) {
        if (v.length == 0) {
            return;
        }
        for (int round = 0; round < 50; round++) {
            double sum = 0;
            for (double x : v) {
                sum += x;
            }
            double f = total / sum;
            if (Math.abs(f - 1) < 1e-12) {
                return;
            }
            for (int i = 0; i < v.length; i++) {
                v[i] = Math.max(min, Math.min(max, v[i] * f));
            }
        }
    }
}
