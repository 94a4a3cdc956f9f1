package io.gpdedup.bench.runner;

import io.gpdedup.pg.OrdersTable;
import java.io.IOException;
import java.io.OutputStream;

/**
 * One table's share of one segment as gpbackup's COPY sends it: COPY text rows of a synthetic
 * orders table, a pure function of (table, segment), cut to an exact length. The same pair gives
 * the same bytes, so a repeated backup finds them all in the store, and a restore can be checked
 * against them.
 */
final class TableStream {
    private static final int BUFFER = 64 * 1024;
    private final OrdersTable table;
    private final byte[] buf = new byte[BUFFER + OrdersTable.MAX_ROW_BYTES];
    private int filled;
    private int pos;
    private long nextId;

    TableStream(int oid, int segment) {
        this.table = new OrdersTable(((long) oid << 16) ^ segment ^ 0x5DEECE66DL);
        this.nextId = (long) segment << 40;
    }

    /** Writes the next {@code n} bytes of the stream to {@code out}. */
    void copy(OutputStream out, long n) throws IOException {
        long left = n;
        while (left > 0) {
            if (pos == filled) {
                refill();
            }
            int k = (int) Math.min(left, filled - pos);
            out.write(buf, pos, k);
            pos += k;
            left -= k;
        }
    }

    private void refill() {
        int d = 0;
        while (d < BUFFER) {
            d = table.writeRow(nextId++, 0, buf, d);
        }
        filled = d;
        pos = 0;
    }
}
