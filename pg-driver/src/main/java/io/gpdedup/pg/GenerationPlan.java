package io.gpdedup.pg;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The published table mix scaled down (seed-figures D: 31,200 tables, 5% of them of 500 MB or
 * more, 28% empty, the rest smaller; the large tables held about 2 of the 3 TB and the small ones
 * 0.6 TB, so about 77% of the bytes are in large tables). Sizes vary by a seeded factor:
 * large tables 0.75-1.25x their share, small ones 0.5-1.5x, then rescaled to the total.
 */
public record GenerationPlan(List<Table> tables) {
    static final double LARGE_SHARE_OF_TABLES = 0.05;
    static final double EMPTY_SHARE_OF_TABLES = 0.28;
    static final double LARGE_SHARE_OF_BYTES = 2.0 / 2.6;

    public enum Kind { LARGE, SMALL, EMPTY }

    /** One table: its name in the generated schema, kind, row seed and target size in COPY text bytes. */
    public record Table(String name, Kind kind, long seed, long bytes) {
    }

    public static GenerationPlan of(int tables, long totalBytes, long seed) {
        if (tables < 2) {
            throw new IllegalArgumentException("--tables must be at least 2 (one large, one small), got " + tables);
        }
        if (totalBytes < 1) {
            throw new IllegalArgumentException("--scale must be positive");
        }
        int large = Math.max(1, (int) Math.round(tables * LARGE_SHARE_OF_TABLES));
        int empty = (int) Math.round(tables * EMPTY_SHARE_OF_TABLES);
        int small = tables - large - empty;
        if (small < 1) {
            empty = tables - large - 1;
            small = 1;
        }
        SplittableRandom random = new SplittableRandom(seed);
        double[] largeWeights = weights(random, large, 0.75, 1.25);
        double[] smallWeights = weights(random, small, 0.5, 1.5);
        long largeBytes = Math.round(totalBytes * LARGE_SHARE_OF_BYTES);
        long smallBytes = totalBytes - largeBytes;
        List<Table> out = new ArrayList<>();
        for (int i = 0; i < large; i++) {
            out.add(new Table(String.format("large_%03d", i + 1), Kind.LARGE, random.nextLong(), Math.round(largeBytes * largeWeights[i])));
        }
        for (int i = 0; i < small; i++) {
            out.add(new Table(String.format("small_%03d", i + 1), Kind.SMALL, random.nextLong(), Math.round(smallBytes * smallWeights[i])));
        }
        for (int i = 0; i < empty; i++) {
            out.add(new Table(String.format("empty_%03d", i + 1), Kind.EMPTY, random.nextLong(), 0));
        }
        return new GenerationPlan(List.copyOf(out));
    }

    private static double[] weights(SplittableRandom random, int n, double lo, double hi) {
        double[] w = new double[n];
        double sum = 0;
        for (int i = 0; i < n; i++) {
            w[i] = lo + (hi - lo) * random.nextDouble();
            sum += w[i];
        }
        for (int i = 0; i < n; i++) {
            w[i] /= sum;
        }
        return w;
    }

    public long totalBytes() {
        return tables.stream().mapToLong(Table::bytes).sum();
    }
}
