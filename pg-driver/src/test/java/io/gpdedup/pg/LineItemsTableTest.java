package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.time.LocalDate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The lineitem table's rows: valid COPY text of its DDL, stable per (seed, id), changed by an update where an update would change them. */
class LineItemsTableTest {
    private static final int ROWS = 3000;

    @Test
    void postgresLoadsTheRowsAndCopiesThemOutByteForByte() throws Exception {
        byte[] text = GeneratedRows.text(new LineItemsTable(5), ROWS, id -> id % 7 == 0 ? 2 : 0);
        String url = TestPostgres.shared().newDatabase("lineitem");
        byte[] copied;
        try (Connection c = Jdbc.open(url)) {
            copied = GeneratedRows.loadAndCopyOut(c, LineItemsTable.DDL, "lineitem", text, ROWS);
            assertEquals(0, Jdbc.queryLong(c, "SELECT count(*) FROM lineitem WHERE l_receiptdate <= l_shipdate OR l_commitdate < l_shipdate - 121"));
            assertEquals(ROWS / 4, Jdbc.queryLong(c, "SELECT count(DISTINCT l_orderkey) FROM lineitem"));
        }
        // Every row gpbackup would stream from this table is byte for byte a row the generator wrote.
        assertEquals(GeneratedRows.sortedLines(text), GeneratedRows.sortedLines(copied));
    }

    @Test
    void anUpdateChangesStatusFlagDiscountTaxAndReceiptOnly() {
        LineItemsTable table = new LineItemsTable(9);
        int changed = 0;
        for (long id = 1; id <= 500; id++) {
            List<String> before = fields(table, id, 0);
            List<String> after = fields(table, id, 1);
            assertEquals(before, fields(new LineItemsTable(9), id, 0), "a pure function of (seed, id, revision)");
            for (int column : new int[] {0, 1, 2, 3, 4, 5, 10, 11, 13, 14, 15}) {
                assertEquals(before.get(column), after.get(column), "column " + column + " of row " + id);
            }
            assertEquals("F", after.get(9));
            changed += before.equals(after) ? 0 : 1;
            assertTrue(LocalDate.parse(after.get(12)).isAfter(LocalDate.parse(after.get(10))));
            assertEquals(25, before.get(13).length(), "char(25) is padded");
            assertEquals(10, before.get(14).length(), "char(10) is padded");
            assertTrue(before.get(15).length() <= 44, before.get(15));
        }
        assertTrue(changed > 450, "nearly every update changes the row: " + changed);
        assertNotEquals(fields(table, 1, 0), fields(new LineItemsTable(10), 1, 0), "another seed, another table");
    }

    @Test
    void linesOfAnOrderShareItsKeyAndOrdersAreNumberedSparsely() {
        LineItemsTable table = new LineItemsTable(1);
        assertEquals(List.of("1", "1", "1", "1", "2"), List.of(1L, 2L, 3L, 4L, 5L).stream().map(id -> fields(table, id, 0).get(0)).toList());
        assertEquals(List.of("1", "2", "3", "4", "1"), List.of(1L, 2L, 3L, 4L, 5L).stream().map(id -> fields(table, id, 0).get(3)).toList());
        // The ninth order: eight keys used out of every 32.
        assertEquals("33", fields(table, 8 * 4 + 1, 0).get(0));
    }

    private static List<String> fields(LineItemsTable table, long id, int revision) {
        return GeneratedRows.fields(table, id, revision, 16);
    }
}
