package io.gpdedup.bench.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.pg.OrdersTable;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OrdersTableTest {

    private static String row(long seed, long id, int revision) {
        byte[] buf = new byte[OrdersTable.MAX_ROW_BYTES];
        int end = new OrdersTable(seed).writeRow(id, revision, buf, 0);
        return new String(buf, 0, end, StandardCharsets.US_ASCII);
    }

    @Test
    void rowIsAPureFunctionOfSeedIdRevision() {
        OrdersTable table = new OrdersTable(5);
        byte[] a = new byte[OrdersTable.MAX_ROW_BYTES];
        table.writeRow(99, 0, a, 0);
        table.writeRow(1234, 3, a, 0); // state from another row must not leak
        assertEquals(row(5, 99, 0), row(5, 99, 0));
        assertNotEquals(row(5, 99, 0), row(6, 99, 0));
    }

    @Test
    void updateChangesValuesButKeepsIdAndNote() {
        for (long id = 1; id <= 200; id++) {
            List<String> before = CopyRows.fields(row(3, id, 0).stripTrailing());
            List<String> after = CopyRows.fields(row(3, id, 1).stripTrailing());
            assertEquals(before.get(0), after.get(0));
            assertEquals(before.get(4), after.get(4));
            assertNotEquals(before.get(1), after.get(1), "updated_at must move on update");
            assertTrue(LocalDateTime.parse(after.get(1).replace(' ', 'T'))
                    .isAfter(LocalDateTime.parse(before.get(1).replace(' ', 'T'))));
        }
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(longs = {1, 2, 3})
    void rowsAreValidCopyTextWithNullsAndEscapes(long seed) {
        int nullAmount = 0;
        int nullStatus = 0;
        int nullNote = 0;
        int newlines = 0;
        int tabs = 0;
        int backslashes = 0;
        long bytes = 0;
        int rows = 20_000;
        for (long id = 1; id <= rows; id++) {
            String line = row(seed, id, 0);
            bytes += line.length();
            assertTrue(line.endsWith("\n") && line.indexOf('\n') == line.length() - 1, line);
            List<String> f = CopyRows.fields(line.substring(0, line.length() - 1));
            assertEquals(5, f.size(), line);
            assertEquals(id, Long.parseLong(f.get(0)));
            LocalDateTime.parse(f.get(1).replace(' ', 'T'));
            if (f.get(2) == null) {
                nullAmount++;
            } else {
                assertTrue(new BigDecimal(f.get(2)).scale() == 2, f.get(2));
            }
            nullStatus += f.get(3) == null ? 1 : 0;
            if (f.get(4) == null) {
                nullNote++;
            } else {
                newlines += f.get(4).contains("\n") ? 1 : 0;
                tabs += f.get(4).contains("\t") ? 1 : 0;
                backslashes += f.get(4).contains("\\") ? 1 : 0;
            }
        }
        assertTrue(nullAmount > 100 && nullStatus > 100 && nullNote > 100, "NULLs in every nullable column");
        assertTrue(newlines > 50 && tabs > 50 && backslashes > 50, newlines + " " + tabs + " " + backslashes);
        double mean = (double) bytes / rows;
        assertTrue(mean > 300 && mean < 700, "mean row " + mean);
    }

    @Test
    void tooLittleRoomIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new OrdersTable(1).writeRow(1, 0, new byte[100], 0));
    }
}
