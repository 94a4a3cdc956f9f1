package io.gpdedup.pg;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** Which tables a backup takes, read from the catalogs, and worker 0's locks on them. */
final class Catalog {
    /** Tables per LOCK statement: one statement for thousands of names is fine, but keep errors readable. */
    private static final int LOCK_BATCH = 200;

    private Catalog() {
    }

    /**
     * Ordinary tables (not temporary, not owned by an extension) outside the system schemas that
     * the filter accepts, in schema, name order. Partitions and inheritance children are refused:
     * their DDL is beyond what {@link CatalogSchema} writes.
     */
    static List<TableRef> tables(Connection c, TableFilter filter) throws SQLException {
        String sql = """
                SELECT c.oid, n.nspname, c.relname, pg_catalog.pg_table_size(c.oid),
                       c.relispartition OR EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i WHERE i.inhrelid = c.oid) AS child
                FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                WHERE c.relkind = 'r' AND c.relpersistence <> 't'
                  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname !~ '^pg_(toast|temp_)'
                  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend d
                                  WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid AND d.deptype = 'e')
                ORDER BY n.nspname, c.relname
                """;
        List<TableRef> out = new ArrayList<>();
        List<String> children = new ArrayList<>();
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery(sql)) {
            while (r.next()) {
                TableRef t = new TableRef(r.getLong(1), r.getString(2), r.getString(3), r.getLong(4));
                if (!filter.accepts(t.schema(), t.name())) {
                    continue;
                }
                if (r.getBoolean(5)) {
                    children.add(t.displayName());
                }
                out.add(t);
            }
        }
        if (!children.isEmpty()) {
            throw new IllegalArgumentException("partitions and inheritance children are not supported: " + children
                    + "; leave them out with --exclude-table");
        }
        return out;
    }

    /** {@code LOCK TABLE ... IN ACCESS SHARE MODE} on every table, waiting as long as it takes (worker 0). */
    static void lockAll(Connection c, List<TableRef> tables) throws SQLException {
        for (int from = 0; from < tables.size(); from += LOCK_BATCH) {
            List<TableRef> batch = tables.subList(from, Math.min(tables.size(), from + LOCK_BATCH));
            Jdbc.execute(c, "LOCK TABLE " + batch.stream().map(TableRef::sql).collect(Collectors.joining(", ")) + " IN ACCESS SHARE MODE");
        }
    }
}
