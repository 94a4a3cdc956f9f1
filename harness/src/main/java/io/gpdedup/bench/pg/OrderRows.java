package io.gpdedup.bench.pg;

import io.gpdedup.bench.workload.OrdersTable;
import java.io.InputStream;
import java.util.Objects;

/**
 * Rows {@code firstId .. firstId+count-1} of a seeded {@link OrdersTable} in COPY text, generated
 * as they are read: loads and appends of any size cost one buffer.
 */
final class OrderRows extends InputStream {
    /** Mean COPY text length of an {@link OrdersTable} row, from a 4,000-row sample of seed 1. */
    static final double MEAN_ROW_BYTES = meanRowBytes();

    private final OrdersTable table;
    private final long endId;
    private final byte[] buf = new byte[256 << 10];
    private long nextId;
    private int pos;
    private int limit;

    OrderRows(long seed, long firstId, long count) {
        this.table = new OrdersTable(seed);
        this.nextId = firstId;
        this.endId = firstId + count;
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
        while (nextId < endId && buf.length - limit >= OrdersTable.MAX_ROW_BYTES) {
            limit = table.writeRow(nextId++, 0, buf, limit);
        }
        return limit > 0;
    }

    private static double meanRowBytes() {
        OrdersTable t = new OrdersTable(1);
        byte[] row = new byte[OrdersTable.MAX_ROW_BYTES];
        long total = 0;
        int n = 4000;
        for (int id = 1; id <= n; id++) {
            total += t.writeRow(id, 0, row, 0);
        }
        return (double) total / n;
    }
}
