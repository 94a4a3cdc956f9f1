package io.gpdedup.pg;

import java.util.Arrays;
import java.util.Locale;
import java.util.function.LongFunction;

/** The kinds of table a benchmark can generate: the same mutations, rows of another shape. */
public enum TableShape {
    /** Long free-text notes beside a few short columns ({@link OrdersTable}). */
    ORDERS("orders", "id, timestamp, numeric, short and long text, NULLs", OrdersTable::new),
    /** A fact table of keys, amounts, dates and codes with a short comment ({@link LineItemsTable}). */
    LINEITEM("lineitem", "keys, numerics, dates, padded codes, a short comment", LineItemsTable::new),
    /** pgbench's accounts: three integers and a blank padded filler, compressing about 90 times ({@link AccountsTable}). */
    ACCOUNTS("accounts", "three integers and a blank char(84) filler, like pgbench_accounts", AccountsTable::new);

    private final String label;
    private final String columns;
    private final LongFunction<CopyTable> rows;

    TableShape(String label, String columns, LongFunction<CopyTable> rows) {
        this.label = label;
        this.columns = columns;
        this.rows = rows;
    }

    /** The generator of this shape's rows for {@code seed}. */
    public CopyTable rows(long seed) {
        return rows.apply(seed);
    }

    /** The name a user types and a report prints. */
    public String label() {
        return label;
    }

    /** What its columns hold, for a report. */
    public String columns() {
        return columns;
    }

    /** The shape named {@code label}; fails with the names there are. */
    public static TableShape of(String label) {
        for (TableShape s : values()) {
            if (s.label.equals(label.toLowerCase(Locale.ROOT))) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown table \"" + label + "\": one of "
                + String.join(", ", Arrays.stream(values()).map(TableShape::label).toList()));
    }
}
