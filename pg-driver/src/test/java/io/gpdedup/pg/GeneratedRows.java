package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import java.util.function.LongToIntFunction;

/** What the generated tables' tests share: their rows as COPY text, through a real PostgreSQL and back, and split into fields. */
final class GeneratedRows {
    private GeneratedRows() {
    }

    /** Rows 1 to {@code rows} of {@code table}, each at the revision {@code revisionOf} gives its id. */
    static byte[] text(CopyTable table, int rows, LongToIntFunction revisionOf) {
        ByteArrayOutputStream text = new ByteArrayOutputStream();
        byte[] buf = new byte[CopyTable.MAX_ROW_BYTES];
        for (long id = 1; id <= rows; id++) {
            text.write(buf, 0, table.writeRow(id, revisionOf.applyAsInt(id), buf, 0));
        }
        return text.toByteArray();
    }

    /** Creates the table with {@code ddl}, loads {@code text} (checking that every row went in) and returns what COPY prints of it. */
    static byte[] loadAndCopyOut(Connection c, String ddl, String name, byte[] text, int rows) throws Exception {
        Jdbc.execute(c, ddl);
        assertEquals(rows, Jdbc.copy(c).copyIn("COPY " + name + " FROM STDIN", new ByteArrayInputStream(text)));
        ByteArrayOutputStream copied = new ByteArrayOutputStream();
        Jdbc.copy(c).copyOut("COPY " + name + " TO STDOUT", copied);
        return copied.toByteArray();
    }

    /**
     * The lines of COPY text in sorted order: the heap may place a few rows in other pages' free
     * space, so what PostgreSQL copies out is compared with what was loaded as a multiset.
     */
    static List<String> sortedLines(byte[] text) {
        return new String(text, StandardCharsets.US_ASCII).lines().sorted().toList();
    }

    /** The fields of row {@code (id, revision)}, checking that it ends its line and has {@code columns} of them. */
    static List<String> fields(CopyTable table, long id, int revision, int columns) {
        byte[] buf = new byte[CopyTable.MAX_ROW_BYTES];
        int end = table.writeRow(id, revision, buf, 0);
        assertEquals('\n', buf[end - 1]);
        List<String> f = List.of(new String(buf, 0, end - 1, StandardCharsets.US_ASCII).split("\t", -1));
        assertEquals(columns, f.size());
        return f;
    }
}
