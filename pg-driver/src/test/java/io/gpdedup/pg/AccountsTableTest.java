package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The accounts table's rows: what PostgreSQL copies out of pgbench's DDL, changed by an update in the balance only. */
class AccountsTableTest {
    private static final int ROWS = 3000;

    @Test
    void postgresLoadsTheRowsAndCopiesThemOutByteForByte() throws Exception {
        byte[] text = GeneratedRows.text(new AccountsTable(5), ROWS, id -> id % 7 == 0 ? 3 : 0);
        String url = TestPostgres.shared().newDatabase("accounts");
        byte[] copied;
        try (Connection c = Jdbc.open(url)) {
            copied = GeneratedRows.loadAndCopyOut(c, AccountsTable.DDL, "pgbench_accounts", text, ROWS);
            assertEquals(0, Jdbc.queryLong(c, "SELECT count(*) FROM pgbench_accounts WHERE abalance NOT BETWEEN -15000 AND 15000"));
            assertTrue(Jdbc.queryLong(c, "SELECT count(*) FROM pgbench_accounts WHERE (aid - 400000000) % 7 = 0 AND abalance <> 0") > ROWS / 7 - 5,
                    "the updated rows have balances");
            assertEquals(0, Jdbc.queryLong(c, "SELECT count(*) FROM pgbench_accounts WHERE (aid - 400000000) % 7 <> 0 AND abalance <> 0"));
            assertEquals(1, Jdbc.queryLong(c, "SELECT count(DISTINCT bid) FROM pgbench_accounts"), "3,000 accounts of one branch");
        }
        assertEquals(GeneratedRows.sortedLines(text), GeneratedRows.sortedLines(copied));
    }

    @Test
    void anUpdateMovesTheBalanceOnlyAndBranchesHoldAHundredThousandAccounts() {
        AccountsTable table = new AccountsTable(1);
        int changed = 0;
        for (long id = 1; id <= 500; id++) {
            List<String> before = fields(table, id, 0);
            List<String> after = fields(table, id, 1);
            assertEquals(before, fields(new AccountsTable(1), id, 0), "a pure function of (seed, id, revision)");
            assertEquals(List.of(String.valueOf(id), "1", "0", " ".repeat(84)), before);
            assertEquals(before.subList(0, 2), after.subList(0, 2));
            assertEquals(before.get(3), after.get(3));
            assertTrue(Math.abs(Integer.parseInt(after.get(2))) <= 5000, after.get(2));
            changed += before.equals(after) ? 0 : 1;
        }
        assertTrue(changed > 490, "nearly every update changes the balance: " + changed);
        assertEquals("1", fields(table, 100_000, 0).get(1));
        assertEquals("2", fields(table, 100_001, 0).get(1));
        assertNotEquals(fields(table, 7, 2), fields(new AccountsTable(22), 7, 2), "another seed, other balances");
    }

    @Test
    void seedsAreSlicesOfOneTableSharingNoRow() {
        assertEquals(List.of("1", "1"), fields(new AccountsTable(1), 1, 0).subList(0, 2), "pgbench's own numbering");
        assertEquals(List.of("1300000001", "13001"), fields(new AccountsTable(1001), 1, 0).subList(0, 2));
        assertEquals(List.of("2000000005", "20001"), fields(new AccountsTable(21), 5, 0).subList(0, 2), "the last slice stays an integer");
        assertEquals(fields(new AccountsTable(1), 3, 0), fields(new AccountsTable(22), 3, 0), "21 slices, then they repeat");
    }

    private static List<String> fields(AccountsTable table, long id, int revision) {
        return GeneratedRows.fields(table, id, revision, 4);
    }
}
