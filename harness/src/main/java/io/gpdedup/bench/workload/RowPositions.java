package io.gpdedup.bench.workload;

import io.gpdedup.pg.RowRun;
import io.gpdedup.protocol.model.RunStarts;
import java.util.ArrayList;
import java.util.List;

/** Addresses a version's rows by physical position (0-based), for cutting and splicing runs. */
final class RowPositions {
    private final List<RowRun> runs;
    private final long[] starts;

    RowPositions(List<RowRun> runs) {
        this.runs = runs;
        this.starts = new long[runs.size() + 1];
        for (int i = 0; i < runs.size(); i++) {
            starts[i + 1] = starts[i] + runs.get(i).count();
        }
    }

    long rows() {
        return starts[runs.size()];
    }

    /** The rows at positions [from, to), appended to {@code out} with their revision raised by {@code bump}. */
    void copy(long from, long to, int bump, List<RowRun> out) {
        if (from < 0 || to > rows() || from > to) {
            throw new IndexOutOfBoundsException("rows [" + from + ", " + to + ") of " + rows());
        }
        int i = RunStarts.runAt(starts, from);
        long pos = from;
        while (pos < to) {
            RowRun r = runs.get(i);
            long skip = pos - starts[i];
            long take = Math.min(r.count() - skip, to - pos);
            out.add(new RowRun(r.firstId() + skip, take, r.revision() + bump));
            pos += take;
            i++;
        }
    }

    List<RowRun> copy(long from, long to, int bump) {
        List<RowRun> out = new ArrayList<>();
        copy(from, to, bump, out);
        return out;
    }

}
