package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Generated tables and the changes between two backups, checked in the database itself. */
class DatabaseMutatorTest {
    @Test
    void generatedTablesFollowThePlanInIdOrder() throws Exception {
        String url = TestPostgres.shared().newDatabase("generate");
        GenerationPlan plan = GenerationPlan.of(12, 3_000_000, 9);
        DatabaseGenerator.Result r = DatabaseGenerator.generate(url, "gen", plan, 2, false);
        assertEquals(12, r.tables());
        try (Connection c = Jdbc.open(url)) {
            Map<String, DatabaseDigest.TableDigest> d = DatabaseDigest.of(c, TableFilter.ALL);
            for (GenerationPlan.Table t : plan.tables()) {
                assertEquals(DatabaseGenerator.rowsFor(t.bytes()), d.get("gen." + t.name()).rows(), t.name());
            }
            assertEquals(0, outOfOrderRows(c, "gen.large_001"), "rows lie in the heap in id order");
        }
        assertEquals(plan.totalBytes(), r.copyBytes(), plan.totalBytes() * 0.05, "sizes come from the mean row length");
    }

    @Test
    void defaultMutationUpdatesOneClusteredRangeAppendsAndTruncates() throws Exception {
        String url = TestPostgres.shared().newDatabase("mutate");
        DatabaseGenerator.generate(url, "gen", GenerationPlan.of(12, 3_000_000, 9), 2, false);
        Map<String, DatabaseDigest.TableDigest> before;
        try (Connection c = Jdbc.open(url)) {
            before = DatabaseDigest.of(c, TableFilter.ALL);
        }
        DatabaseMutator.Result r = DatabaseMutator.mutate(url, DatabaseMutator.Settings.standard("gen", 5));
        assertNotNull(r.truncated());
        assertTrue(r.truncated().startsWith("gen.small_"), r.truncated());
        try (Connection c = Jdbc.open(url)) {
            Map<String, DatabaseDigest.TableDigest> after = DatabaseDigest.of(c, TableFilter.ALL);
            long updated = 0;
            for (var e : before.entrySet()) {
                long rows = e.getValue().rows();
                String table = e.getKey();
                if (table.equals(r.truncated())) {
                    assertEquals(0, after.get(table).rows());
                    continue;
                }
                assertEquals(rows + Math.round(rows * 0.02), after.get(table).rows(), table);
                List<long[]> ranges = revisedRanges(c, table);
                if (rows > 0) {
                    assertEquals(1, ranges.size(), table + ": one clustered range");
                    assertEquals(Math.round(rows * 0.05), ranges.get(0)[1] - ranges.get(0)[0] + 1, table);
                    updated += ranges.get(0)[1] - ranges.get(0)[0] + 1;
                }
            }
            assertTrue(updated > 0 && updated <= r.rowsUpdated(), "updated " + updated + " of " + r.rowsUpdated());
            assertTrue(outOfOrderRows(c, "gen.large_001") > 0, "updated rows left their place");
        }
    }

    @Test
    void scatteredMutationUpdatesSingleRowsAllOverTheTable() throws Exception {
        String url = TestPostgres.shared().newDatabase("scatter");
        DatabaseGenerator.generate(url, "gen", GenerationPlan.of(6, 2_000_000, 9), 1, false);
        DatabaseMutator.Result r = DatabaseMutator.mutate(url, new DatabaseMutator.Settings("gen", 0.05, 0, true, false, false, 5));
        assertTrue(r.scattered());
        try (Connection c = Jdbc.open(url)) {
            List<long[]> ranges = revisedRanges(c, "gen.large_001");
            long count = ranges.stream().mapToLong(x -> x[1] - x[0] + 1).sum();
            assertTrue(ranges.size() > count / 2, ranges.size() + " runs for " + count + " updated rows: mostly single rows");
        }
    }

    /** Runs of consecutive ids among the updated rows. */
    private static List<long[]> revisedRanges(Connection c, String table) throws Exception {
        List<long[]> out = new ArrayList<>();
        try (Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT id FROM " + table.replace("gen.", "gen.\"") + "\" WHERE status = 'revised' ORDER BY id")) {
            while (r.next()) {
                long id = r.getLong(1);
                if (!out.isEmpty() && out.get(out.size() - 1)[1] == id - 1) {
                    out.get(out.size() - 1)[1] = id;
                } else {
                    out.add(new long[] {id, id});
                }
            }
        }
        return out;
    }

    private static long outOfOrderRows(Connection c, String table) throws Exception {
        return Jdbc.queryLong(c, "SELECT count(*) FILTER (WHERE id < prev) FROM (SELECT id, lag(id) OVER (ORDER BY ctid) AS prev FROM "
                + table + ") s");
    }
}
