package io.gpdedup.pg;

import java.io.InputStream;
import java.util.List;
import java.util.Objects;

/** Generates a table version's COPY text on demand; memory is one 256 KiB buffer. */
public final class CopyTextStream extends InputStream {
    private final CopyTable table;
    private final List<RowRun> runs;
    private final byte[] buf = new byte[256 << 10];
    private int pos;
    private int limit;
    private int runIndex;
    private long nextInRun;

    /** The rows of {@code runs}, in order, of {@code table}. */
    public CopyTextStream(CopyTable table, List<RowRun> runs) {
        this.table = table;
        this.runs = runs;
    }

    /** Rows {@code firstId .. firstId+count-1} of the seeded orders table at revision 0 (none when count is 0). */
    public static CopyTextStream rows(long seed, long firstId, long count) {
        return new CopyTextStream(new OrdersTable(seed), count == 0 ? List.of() : List.of(new RowRun(firstId, count, 0)));
    }

    @Override
    public int read() {
        if (pos == limit && !fill()) {
            return -1;
        }
        return buf[pos++] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        Objects.checkFromIndexSize(off, len, b.length);
        if (len == 0) {
            return 0;
        }
        if (pos == limit && !fill()) {
            return -1;
        }
        int n = Math.min(len, limit - pos);
        System.arraycopy(buf, pos, b, off, n);
        pos += n;
        return n;
    }

    private boolean fill() {
        pos = 0;
        limit = 0;
        while (runIndex < runs.size() && buf.length - limit >= CopyTable.MAX_ROW_BYTES) {
            RowRun run = runs.get(runIndex);
            limit = table.writeRow(run.firstId() + nextInRun, run.revision(), buf, limit);
            if (++nextInRun == run.count()) {
                runIndex++;
                nextInRun = 0;
            }
        }
        return limit > 0;
    }
}
