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

    /** The seed's shape: 5% of the tables (those of 500 MB or more) hold four fifths of the data (2.4 of 3 TiB). */
    static final double LARGE_SHARE = 0.05;
    private static final double SEED_THRESHOLD = 500 * MIB;
    private static final double SEED_SMALLEST = 64 * 1024;
    private static final long SEED_SEED = 3;
    /** The mean size of the seed's large tables: 2.4 TiB over 1,560. */
    private static final double SEED_LARGE_MEAN = 2.4 * TIB / 1560;
    /** The seed's database: 31,200 tables, 28% of them empty, 3 TiB of table data. */
    static final int SEED_TABLES = 31_200;
    static final double SEED_EMPTY_FRACTION = 0.28;
    static final double SEED_BYTES = 3 * TIB;
    static final int MIN_SITE_TABLES = 20;
    static final double MAX_EMPTY_FRACTION = 0.85;

    private final List<Table> tables;
    private final java.util.Map<Published.Tables, List<Table>> selections = new java.util.concurrent.ConcurrentHashMap<>();

    private TableMix(List<Table> tables) {
        this.tables = List.copyOf(tables);
    }

    /** The published mix with the given counts and class totals. */
    public static TableMix of(int tables, double largeShare, double emptyShare, double largeBytes, double smallBytes, long seed) {
        return generate(tables, largeShare, emptyShare, largeBytes, smallBytes, seed, SEED_THRESHOLD, SEED_SMALLEST);
    }

    /**
     * A site's database in the seed's shape: {@code tables} tables, {@code emptyFraction} of them
     * empty, 5% of them holding 80% of {@code bytes} of table data, sizes drawn as the seed's and
     * scaled with the mean size of a large table (so the seed's own figures give the seed's mix).
     */
    public static TableMix site(int tables, double bytes, double emptyFraction) {
        if (tables < MIN_SITE_TABLES) {
            throw new IllegalArgumentException("--tables must be at least " + MIN_SITE_TABLES + " (the seed's shape puts 5% of them in its large class)");
        }
        if (!(bytes > 0) || Double.isInfinite(bytes)) {
            throw new IllegalArgumentException("--data must be more than 0 bytes");
        }
        if (!(emptyFraction >= 0 && emptyFraction <= MAX_EMPTY_FRACTION)) {
            throw new IllegalArgumentException("--empty-fraction must be between 0 and " + MAX_EMPTY_FRACTION
                    + " (the small tables must outnumber the large ones to hold a fifth of the data), got " + emptyFraction);
        }
        int large = (int) Math.round(tables * LARGE_SHARE);
        // four fifths and one fifth: for the seed's 3 TiB these are exactly 2.4 and 0.6 TiB
        double largeBytes = bytes * 4 / 5;
        double scale = (largeBytes / large) / SEED_LARGE_MEAN;
        return generate(tables, LARGE_SHARE, emptyFraction, largeBytes, bytes / 5, SEED_SEED, SEED_THRESHOLD * scale,
                SEED_SMALLEST * scale);
    }

    private static TableMix generate(int tables, double largeShare, double emptyShare, double largeBytes, double smallBytes, long seed,
            double threshold, double smallest) {
        int large = (int) Math.round(tables * largeShare);
        int empty = (int) Math.round(tables * emptyShare);
        int small = tables - large - empty;
        if (large < 0 || empty < 0 || small < 0) {
            throw new IllegalArgumentException("table shares do not add up");
        }
        SplittableRandom rnd = new SplittableRandom(seed);
        double[] l = new double[large];
        double[] s = new double[small];
        for (int i = 0; i < large; i++) {
            // Pareto with alpha 1.5 from the threshold (the seed's: 500 MB), cut at 200x.
            l[i] = threshold * Math.min(200, Math.pow(1 - rnd.nextDouble(), -1 / 1.5));
        }
        for (int i = 0; i < small; i++) {
            // log-uniform between the smallest (the seed's: 64 KB) and the threshold
            s[i] = Math.exp(Math.log(smallest) + rnd.nextDouble() * (Math.log(threshold) - Math.log(smallest)));
        }
        scaleTo(l, largeBytes, threshold, Double.MAX_VALUE);
        scaleTo(s, smallBytes, 0, threshold);
        for (double[] sizes : new double[][] {l, s}) {
            double want = sizes == l ? largeBytes : smallBytes;
            if (sizes.length > 0 && Math.abs(java.util.Arrays.stream(sizes).sum() - want) > 1e-6 * want) {
                throw new IllegalArgumentException("the table sizes cannot add up to the data asked for in the seed's shape");
            }
        }
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
        return of(SEED_TABLES, LARGE_SHARE, SEED_EMPTY_FRACTION, 2.4 * TIB, 0.6 * TIB, SEED_SEED);
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
