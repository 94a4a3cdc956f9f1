package io.gpdedup.bench.workload;

import io.gpdedup.pg.CopyTable;
import io.gpdedup.pg.CopyTextStream;
import io.gpdedup.pg.RowRun;
import io.gpdedup.pg.TableShape;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * One version of a generated table ({@link TableShape}) as gpbackup would COPY it: rows in
 * physical (heap) order, described as runs of consecutive ids. Rows are generated when the stream
 * is read, so a version of any size costs only its run list (a few entries per mutation).
 */
public final class TableVersion {
    private final TableShape shape;
    private final long seed;
    private final List<RowRun> runs;
    private final long nextId;
    private final long rowCount;

    private TableVersion(TableShape shape, long seed, List<RowRun> runs, long nextId) {
        this.shape = shape;
        this.seed = seed;
        this.runs = Collections.unmodifiableList(merge(runs));
        this.nextId = nextId;
        this.rowCount = this.runs.stream().mapToLong(RowRun::count).sum();
    }

    /** Rows 1..rows at revision 0, in id order: a freshly loaded table. */
    public static TableVersion base(TableShape shape, long seed, long rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("a table needs at least one row, got " + rows);
        }
        return new TableVersion(shape, seed, List.of(new RowRun(1, rows, 0)), rows + 1);
    }

    /** A base version of about {@code bytes} of COPY text (row count from the mean of a 4,000-row sample). */
    public static TableVersion baseOfSize(TableShape shape, long seed, long bytes) {
        CopyTable table = shape.rows(seed);
        byte[] row = new byte[CopyTable.MAX_ROW_BYTES];
        long sample = 0;
        int n = 4000;
        for (int id = 1; id <= n; id++) {
            sample += table.writeRow(id, 0, row, 0);
        }
        return base(shape, seed, Math.max(1, Math.round(bytes / ((double) sample / n))));
    }

    /** The next version of this table: the same rows' generator, rows in the order of {@code newRuns}. */
    TableVersion with(List<RowRun> newRuns, long newNextId) {
        return new TableVersion(shape, seed, newRuns, newNextId);
    }

    public TableShape shape() {
        return shape;
    }

    public long seed() {
        return seed;
    }

    /** Runs in physical order. */
    public List<RowRun> runs() {
        return runs;
    }

    long rowCount() {
        return rowCount;
    }

    /** The id the next inserted row gets (ids come from a sequence and are never reused). */
    public long nextId() {
        return nextId;
    }

    /** The table's COPY text, generated as it is read. */
    public InputStream open() {
        return new CopyTextStream(shape.rows(seed), runs);
    }

    /**
     * Bytes of COPY text of the rows whose (id, revision) {@code earlier} does not hold: the least
     * any deduplicating store must take in for this version.
     */
    public long changedBytesSince(TableVersion earlier) {
        List<RowRun> byId = new ArrayList<>(earlier.runs);
        byId.sort(Comparator.comparingLong(RowRun::firstId));
        boolean sameTable = earlier.shape == shape && earlier.seed == seed;
        CopyTable table = shape.rows(seed);
        byte[] row = new byte[CopyTable.MAX_ROW_BYTES];
        long bytes = 0;
        for (RowRun run : runs) {
            RowRun first = find(byId, run.firstId());
            if (sameTable && first != null && first.revision() == run.revision()
                    && first.endId() >= run.endId()) {
                continue;
            }
            for (long id = run.firstId(); id < run.endId(); id++) {
                RowRun old = find(byId, id);
                if (old == null || old.revision() != run.revision() || !sameTable) {
                    bytes += table.writeRow(id, run.revision(), row, 0);
                }
            }
        }
        return bytes;
    }

    private static RowRun find(List<RowRun> byId, long id) {
        int lo = 0;
        int hi = byId.size() - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            RowRun r = byId.get(mid);
            if (id < r.firstId()) {
                hi = mid - 1;
            } else if (id >= r.endId()) {
                lo = mid + 1;
            } else {
                return r;
            }
        }
        return null;
    }

    /** Joins neighbours that continue each other, so repeated slicing keeps the list short. */
    private static List<RowRun> merge(List<RowRun> runs) {
        List<RowRun> out = new ArrayList<>(runs.size());
        for (RowRun r : runs) {
            RowRun last = out.isEmpty() ? null : out.get(out.size() - 1);
            if (last != null && last.endId() == r.firstId() && last.revision() == r.revision()) {
                out.set(out.size() - 1, new RowRun(last.firstId(), last.count() + r.count(), r.revision()));
            } else {
                out.add(r);
            }
        }
        return out;
    }

    @Override
    public String toString() {
        return "TableVersion[" + shape.label() + ", seed=" + seed + ", rows=" + rowCount + ", runs=" + runs.size() + "]";
    }
}
