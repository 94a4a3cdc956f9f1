package io.gpdedup.bench.workload;

import io.gpdedup.pg.RowRandom;
import io.gpdedup.pg.RowRun;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What a database does to a table between two backups, as a change to its physical row order.
 * Each mutation is deterministic in (version, seed). Fractions are of the version's row count.
 */
public sealed interface Mutation {

    /** The next version of {@code version}. */
    TableVersion applyTo(TableVersion version, long seed);

    /** A short label for reports. */
    String label();

    /** The brief's four: 5% clustered update, 1% inserted in 10 runs, 2% appended, 0.1% scattered updates. */
    static List<Mutation> standard() {
        return List.of(new ClusteredUpdate(0.05), new InsertedRuns(0.01, 10), new Append(0.02),
                new ScatteredUpdates(0.001));
    }

    /**
     * A batch UPDATE of a contiguous id range. PostgreSQL writes new row versions where there is
     * free space, typically at the end of the heap, so the rows leave their place and COPY
     * emits them last, with new values.
     */
    record ClusteredUpdate(double fraction) implements Mutation {
        public ClusteredUpdate {
            checkFraction(fraction);
        }

        @Override
        public TableVersion applyTo(TableVersion v, long seed) {
            RowPositions at = new RowPositions(v.runs());
            long k = count(fraction, v.rowCount());
            long from = new SplittableRandom(seed).nextLong(v.rowCount() - k + 1);
            List<RowRun> out = at.copy(0, from, 0);
            at.copy(from + k, v.rowCount(), 0, out);
            at.copy(from, from + k, 1, out);
            return v.with(out, v.nextId());
        }

        @Override
        public String label() {
            return "(a) clustered update " + percent(fraction);
        }
    }

    /**
     * New rows inserted into free space in the middle of the heap, in {@code runs} runs of
     * consecutive new ids: every byte after the first run shifts.
     */
    record InsertedRuns(double fraction, int runs) implements Mutation {
        public InsertedRuns {
            checkFraction(fraction);
            if (runs < 1) {
                throw new IllegalArgumentException("inserted runs must be at least 1, got " + runs);
            }
        }

        @Override
        public TableVersion applyTo(TableVersion v, long seed) {
            RowPositions at = new RowPositions(v.runs());
            long k = count(fraction, v.rowCount());
            int n = (int) Math.min(runs, k);
            long[] positions = distinctPositions(new SplittableRandom(seed), n, 1, v.rowCount());
            List<RowRun> out = new ArrayList<>();
            long id = v.nextId();
            long prev = 0;
            for (int i = 0; i < n; i++) {
                at.copy(prev, positions[i], 0, out);
                long size = k / n + (i < k % n ? 1 : 0);
                out.add(new RowRun(id, size, 0));
                id += size;
                prev = positions[i];
            }
            at.copy(prev, v.rowCount(), 0, out);
            return v.with(out, id);
        }

        @Override
        public String label() {
            return "(b) inserted " + percent(fraction) + " in " + runs + " runs";
        }
    }

    /** New rows at the end of the heap. */
    record Append(double fraction) implements Mutation {
        public Append {
            checkFraction(fraction);
        }

        @Override
        public TableVersion applyTo(TableVersion v, long seed) {
            long k = count(fraction, v.rowCount());
            List<RowRun> out = new ArrayList<>(v.runs());
            out.add(new RowRun(v.nextId(), k, 0));
            return v.with(out, v.nextId() + k);
        }

        @Override
        public String label() {
            return "(c) appended " + percent(fraction);
        }
    }

    /**
     * Single-row updates of random rows, each kept on its page (a HOT update): the worst case for
     * chunk dedup, since every change lands in a different place.
     */
    record ScatteredUpdates(double fraction) implements Mutation {
        public ScatteredUpdates {
            checkFraction(fraction);
        }

        @Override
        public TableVersion applyTo(TableVersion v, long seed) {
            RowPositions at = new RowPositions(v.runs());
            long k = count(fraction, v.rowCount());
            long[] positions = distinctPositions(new SplittableRandom(seed), (int) k, 0, v.rowCount());
            List<RowRun> out = new ArrayList<>();
            long prev = 0;
            for (long p : positions) {
                at.copy(prev, p, 0, out);
                at.copy(p, p + 1, 1, out);
                prev = p + 1;
            }
            at.copy(prev, v.rowCount(), 0, out);
            return v.with(out, v.nextId());
        }

        @Override
        public String label() {
            return "(d) scattered updates " + percent(fraction);
        }
    }

    /** Several mutations one after the other, each with its own seed derived from {@code seed}. */
    record Sequence(List<Mutation> steps) implements Mutation {
        public Sequence {
            steps = List.copyOf(steps);
        }

        @Override
        public TableVersion applyTo(TableVersion v, long seed) {
            for (int i = 0; i < steps.size(); i++) {
                v = steps.get(i).applyTo(v, RowRandom.mix(seed + i));
            }
            return v;
        }

        @Override
        public String label() {
            return "all of (a)-(d)";
        }
    }

    private static void checkFraction(double fraction) {
        if (!(fraction > 0 && fraction < 1)) {
            throw new IllegalArgumentException("a mutation fraction must be in (0, 1), got " + fraction);
        }
    }

    private static long count(double fraction, long rows) {
        return Math.max(1, Math.round(fraction * rows));
    }

    private static String percent(double fraction) {
        return (fraction * 100 == Math.rint(fraction * 100) ? String.valueOf((long) (fraction * 100))
                : String.valueOf(fraction * 100)) + "%";
    }

    /** {@code n} distinct positions in [lo, hi), sorted. */
    private static long[] distinctPositions(SplittableRandom random, int n, long lo, long hi) {
        if (n > hi - lo) {
            throw new IllegalArgumentException(n + " positions do not fit in [" + lo + ", " + hi + ")");
        }
        long[] picked = new long[n];
        int have = 0;
        while (have < n) {
            for (int i = have; i < n; i++) {
                picked[i] = lo + random.nextLong(hi - lo);
            }
            Arrays.sort(picked);
            have = 0;
            for (int i = 0; i < n; i++) {
                if (i == 0 || picked[i] != picked[i - 1]) {
                    picked[have++] = picked[i];
                }
            }
            // Duplicates were dropped; the freed tail is redrawn on the next pass.
            for (int i = have; i < n; i++) {
                picked[i] = Long.MAX_VALUE;
            }
        }
        return picked;
    }
}
