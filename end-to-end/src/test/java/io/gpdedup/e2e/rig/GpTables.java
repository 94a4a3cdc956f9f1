package io.gpdedup.e2e.rig;

import io.gpdedup.pg.DatabaseDigest;
import io.gpdedup.pg.DatabaseDigest.TableDigest;
import io.gpdedup.pg.TableRef;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * The user tables of a Greenplum 6 database and their digests (row count and an order-independent
 * checksum of the rows, {@link DatabaseDigest}). Partitioned tables count by their leaves: a
 * parent's rows are its leaves' rows, which gprestore loads leaf by leaf.
 */
final class GpTables {
    private static final String LEAF_TABLES = """
            SELECT n.nspname, c.relname
            FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind = 'r' AND c.relstorage <> 'x'
              AND n.nspname NOT IN ('pg_catalog', 'information_schema', 'gp_toolkit') AND n.nspname !~ '^pg_'
              AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i WHERE i.inhparent = c.oid)
            ORDER BY 1, 2""";

    private GpTables() {
    }

    /** Digests of every user table of {@code database}, keyed by {@code schema.table}. */
    static Map<String, TableDigest> digests(Rig rig, String database) throws SQLException {
        return digests(rig, database, name -> true);
    }

    /** Digests of the user tables of {@code database} that {@code keep} accepts (by {@code schema.table}). */
    static Map<String, TableDigest> digests(Rig rig, String database, Predicate<String> keep) throws SQLException {
        Map<String, TableDigest> out = new LinkedHashMap<>();
        try (Connection c = rig.connect(database)) {
            for (TableRef t : tables(c)) {
                if (keep.test(t.displayName())) {
                    out.put(t.displayName(), DatabaseDigest.of(c, t.sql()));
                }
            }
        }
        return out;
    }

    /** Rows per segment of {@code table}: {@code gp_segment_id -> rows}. */
    static Map<Integer, Long> rowsPerSegment(Rig rig, String database, String table) throws SQLException {
        Map<Integer, Long> out = new LinkedHashMap<>();
        try (Connection c = rig.connect(database); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("SELECT gp_segment_id, count(*) FROM " + table + " GROUP BY 1 ORDER BY 1")) {
            while (r.next()) {
                out.put(r.getInt(1), r.getLong(2));
            }
        }
        return out;
    }

    private static List<TableRef> tables(Connection c) throws SQLException {
        List<TableRef> out = new java.util.ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(LEAF_TABLES)) {
            while (r.next()) {
                out.add(new TableRef(0, r.getString(1), r.getString(2), 0));
            }
        }
        return out;
    }
}
