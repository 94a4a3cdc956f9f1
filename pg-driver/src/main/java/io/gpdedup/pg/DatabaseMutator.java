package io.gpdedup.pg;

import java.io.IOException;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What happens to a database between two backups, on the tables {@link DatabaseGenerator} made:
 * in every non-empty table, an UPDATE of {@code fraction} of its rows, either in one clustered id
 * range (a batch job: PostgreSQL writes the new row versions at the end of the heap, so COPY emits
 * them last and the range leaves a hole) or, with {@code scattered}, at random single rows (the
 * worst case for any dedup: every chunk gets a changed row); then {@code append} of new rows at
 * the end; then TRUNCATE of one small table. Updated rows get a later {@code updated_at}, a new
 * amount and status; their text stays.
 *
 * <p>With {@code vacuumFirst}, each table is vacuumed before it changes, as autovacuum will have
 * done on a live system: the free space map then knows the leftover space in every page, and
 * PostgreSQL puts some of the new row versions (and appended rows) into those gaps all over the
 * heap instead of at its end, which scatters the change.
 */
public final class DatabaseMutator {
    /** The change as parameters. */
    public record Settings(String schema, double fraction, double append, boolean scattered, boolean truncateOne, boolean vacuumFirst,
            long seed) {
        public Settings {
            if (fraction < 0 || fraction > 1 || append < 0 || append > 1) {
                throw new IllegalArgumentException("fractions must be between 0 and 1");
            }
        }

        /** The default change: 5% clustered update, 2% appended, one table truncated. */
        public static Settings standard(String schema, long seed) {
            return new Settings(schema, 0.05, 0.02, false, true, false, seed);
        }
    }

    /** What changed. */
    public record Result(int tablesChanged, long rowsUpdated, long rowsAppended, String truncated, boolean scattered, double seconds) {
    }

    private DatabaseMutator() {
    }

    public static Result mutate(String jdbcUrl, Settings s) throws SQLException, IOException {
        long t0 = System.nanoTime();
        SplittableRandom random = new SplittableRandom(s.seed());
        try (Connection c = Jdbc.open(jdbcUrl)) {
            List<String> tables = tables(c, s.schema());
            if (tables.isEmpty()) {
                throw new IllegalArgumentException("schema " + s.schema() + " has no tables; run 'gpdedup-bench pg generate' first");
            }
            int changed = 0;
            long updated = 0;
            long appended = 0;
            List<String> truncatable = new ArrayList<>();
            for (String table : tables) {
                String name = DatabaseGenerator.qualified(s.schema(), table);
                long rows;
                long maxId;
                try (Statement st = c.createStatement(); ResultSet r = st.executeQuery("SELECT count(*), coalesce(max(id), 0) FROM " + name)) {
                    r.next();
                    rows = r.getLong(1);
                    maxId = r.getLong(2);
                }
                long tableSeed = random.nextLong();
                if (rows == 0) {
                    continue;
                }
                if (s.vacuumFirst()) {
                    Jdbc.execute(c, "VACUUM " + name);
                }
                changed++;
                if (table.startsWith("small_")) {
                    truncatable.add(name);
                }
                long k = Math.round(rows * s.fraction());
                if (k > 0) {
                    updated += s.scattered() ? updateScattered(c, name, maxId, k, tableSeed) : updateRange(c, name, maxId, k, tableSeed);
                }
                long add = Math.round(rows * s.append());
                if (add > 0) {
                    appended += Jdbc.copy(c).copyIn("COPY " + name + " FROM STDIN", OrderRows.of(tableSeed, maxId + 1, add), 1 << 16);
                }
            }
            String truncated = null;
            if (s.truncateOne() && !truncatable.isEmpty()) {
                truncated = truncatable.get(random.nextInt(truncatable.size()));
                Jdbc.execute(c, "TRUNCATE " + truncated);
            }
            return new Result(changed, updated, appended, truncated == null ? null : truncated.replace("\"", ""), s.scattered(),
                    (System.nanoTime() - t0) / 1e9);
        }
    }

    private static final String SET = "SET updated_at = updated_at + interval '31 days 7 hours', "
            + "amount = round(coalesce(amount, 0) * 1.07 + 1, 2), status = 'revised'";

    /** ids [from, from+k) where ids are dense (1..maxId less truncations): one contiguous run. */
    private static long updateRange(Connection c, String name, long maxId, long k, long seed) throws SQLException {
        long from = 1 + new SplittableRandom(seed).nextLong(Math.max(1, maxId - k + 1));
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + name + " " + SET + " WHERE id >= ? AND id < ?")) {
            ps.setLong(1, from);
            ps.setLong(2, from + k);
            return ps.executeUpdate();
        }
    }

    private static long updateScattered(Connection c, String name, long maxId, long k, long seed) throws SQLException {
        SplittableRandom r = new SplittableRandom(seed);
        java.util.Set<Long> ids = new java.util.HashSet<>();
        while (ids.size() < Math.min(k, maxId)) {
            ids.add(1 + r.nextLong(maxId));
        }
        Array array = c.createArrayOf("bigint", ids.toArray());
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + name + " " + SET + " WHERE id = ANY (?)")) {
            ps.setArray(1, array);
            return ps.executeUpdate();
        }
    }

    private static List<String> tables(Connection c, String schema) throws SQLException {
        List<String> out = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                        + "WHERE n.nspname = ? AND c.relkind = 'r' ORDER BY c.relname")) {
            ps.setString(1, schema);
            try (ResultSet r = ps.executeQuery()) {
                while (r.next()) {
                    out.add(r.getString(1));
                }
            }
        }
        return out;
    }
}
