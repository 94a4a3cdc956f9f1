package io.gpdedup.pg;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Row count and an order-independent checksum per table: the sum (as numeric, no overflow) of the
 * first 64 bits of md5 over each row's text form. Physical order differs between a source and
 * its restore, so the checksum must not depend on it; any changed, lost or extra row changes it.
 */
public final class DatabaseDigest {
    /** One table's digest. */
    public record TableDigest(long rows, String checksum) {
    }

    private DatabaseDigest() {
    }

    /** Digests of every table the filter accepts, keyed by {@code schema.name}. */
    public static Map<String, TableDigest> of(Connection c, TableFilter filter) throws SQLException {
        Map<String, TableDigest> out = new LinkedHashMap<>();
        for (TableRef t : Catalog.tables(c, filter)) {
            out.put(t.displayName(), of(c, t.sql()));
        }
        return out;
    }

    /** The digest of one table, named as SQL wants it (quoted where needed, schema-qualified). */
    public static TableDigest of(Connection c, String qualifiedTable) throws SQLException {
        String sql = "SELECT count(*), coalesce(sum(('x' || substr(md5(t::text), 1, 16))::bit(64)::bigint::numeric), 0)::text FROM "
                + qualifiedTable + " AS t";
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            r.next();
            return new TableDigest(r.getLong(1), r.getString(2));
        }
    }

    /** Differences between two digests, one line per table; empty when they match. */
    public static List<String> compare(Map<String, TableDigest> expected, Map<String, TableDigest> actual) {
        List<String> problems = new ArrayList<>();
        for (String table : new TreeSet<>(expected.keySet())) {
            TableDigest want = expected.get(table);
            TableDigest got = actual.get(table);
            if (got == null) {
                problems.add(table + ": missing");
            } else if (want.rows() != got.rows()) {
                problems.add(table + ": " + got.rows() + " rows, expected " + want.rows());
            } else if (!want.checksum().equals(got.checksum())) {
                problems.add(table + ": same row count (" + got.rows() + "), different contents");
            }
        }
        for (String table : new TreeSet<>(actual.keySet())) {
            if (!expected.containsKey(table)) {
                problems.add(table + ": not expected");
            }
        }
        return problems;
    }
}
