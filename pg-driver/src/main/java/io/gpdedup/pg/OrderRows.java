package io.gpdedup.pg;

import java.io.InputStream;

/**
 * Rows {@code firstId .. firstId+count-1} of a seeded {@link OrdersTable} in COPY text, generated
 * as they are read ({@link CopyTextStream}): loads and appends of any size cost one buffer.
 */
final class OrderRows {
    /** Mean COPY text length of an {@link OrdersTable} row, from a 4,000-row sample of seed 1. */
    static final double MEAN_ROW_BYTES = meanRowBytes();

    private OrderRows() {
    }

    static InputStream of(long seed, long firstId, long count) {
        return CopyTextStream.rows(seed, firstId, count);
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
