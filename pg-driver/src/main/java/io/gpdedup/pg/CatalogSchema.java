package io.gpdedup.pg;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes the DDL of the backed-up tables from the catalogs, in the transaction of worker 0 (so it
 * matches the data): schemas, sequences (with their values and owners), tables (columns, types,
 * defaults, NOT NULL, identity, generated columns, collations, UNLOGGED, storage options), CHECK
 * constraints before the data; primary keys, unique and exclusion constraints, indexes and
 * foreign keys (to tables in the backup) after it, as pg_dump orders them. Out of scope: views,
 * functions, types, privileges, comments, owners, partitioning, inheritance.
 */
final class CatalogSchema {
    private CatalogSchema() {
    }

    static SchemaScript read(Connection c, List<TableRef> tables) throws SQLException {
        List<SchemaScript.Entry> out = new ArrayList<>();
        Map<Long, TableRef> byOid = new LinkedHashMap<>();
        Set<String> schemas = new LinkedHashSet<>();
        for (TableRef t : tables) {
            byOid.put(t.oid(), t);
            schemas.add(t.schema());
        }
        Array oids = c.createArrayOf("oid", byOid.keySet().toArray());
        for (String s : schemas) {
            out.add(new SchemaScript.Entry(SchemaScript.Section.PRE, "SCHEMA", s, null, "CREATE SCHEMA IF NOT EXISTS " + Jdbc.quote(s) + ";"));
        }
        List<SchemaScript.Entry> sequenceOwners = sequences(c, schemas, byOid, out);
        Map<Long, StringBuilder> columns = columns(c, oids, byOid);
        List<SchemaScript.Entry> identities = new ArrayList<>();
        for (TableRef t : tables) {
            out.add(new SchemaScript.Entry(SchemaScript.Section.PRE, "TABLE", t.schema(), t.displayName(), columns.get(t.oid()).toString()));
        }
        identityValues(c, oids, byOid, identities);
        out.addAll(sequenceOwners);
        constraints(c, oids, byOid, out);
        indexes(c, oids, byOid, out);
        out.addAll(identities);
        return new SchemaScript(out);
    }

    private static List<SchemaScript.Entry> sequences(Connection c, Set<String> schemas, Map<Long, TableRef> tables,
            List<SchemaScript.Entry> out) throws SQLException {
        String sql = """
                SELECT c.oid, n.nspname, c.relname, pg_catalog.format_type(s.seqtypid, NULL), s.seqstart, s.seqincrement,
                       s.seqmin, s.seqmax, s.seqcache, s.seqcycle, d.refobjid, a.attname
                FROM pg_catalog.pg_class c
                JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
                JOIN pg_catalog.pg_sequence s ON s.seqrelid = c.oid
                LEFT JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid
                     AND d.refclassid = 'pg_catalog.pg_class'::regclass AND d.deptype = 'a'
                LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
                WHERE c.relkind = 'S' AND n.nspname = ANY (?)
                  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend i WHERE i.classid = 'pg_catalog.pg_class'::regclass
                                  AND i.objid = c.oid AND i.deptype = 'i')
                ORDER BY n.nspname, c.relname
                """;
        List<SchemaScript.Entry> owners = new ArrayList<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, c.createArrayOf("text", schemas.toArray()));
            try (ResultSet r = ps.executeQuery()) {
                while (r.next()) {
                    String schema = r.getString(2);
                    String name = Jdbc.quote(schema) + "." + Jdbc.quote(r.getString(3));
                    String ddl = "CREATE SEQUENCE " + name + " AS " + r.getString(4) + " INCREMENT BY " + r.getLong(6)
                            + " MINVALUE " + r.getLong(7) + " MAXVALUE " + r.getLong(8) + " START WITH " + r.getLong(5)
                            + " CACHE " + r.getLong(9) + (r.getBoolean(10) ? " CYCLE" : " NO CYCLE") + ";";
                    out.add(new SchemaScript.Entry(SchemaScript.Section.PRE, "SEQUENCE", schema, null, ddl));
                    TableRef owner = tables.get(r.getLong(11));
                    String value = sequenceValue(c, name);
                    if (value != null) {
                        // Tied to its owning table when it has one, so pg_dump-made schemas can pick it up too.
                        out.add(new SchemaScript.Entry(SchemaScript.Section.PRE, "SEQUENCE SET", schema,
                                owner == null ? null : owner.displayName(), value));
                    }
                    if (owner != null && r.getString(12) != null) {
                        owners.add(new SchemaScript.Entry(SchemaScript.Section.PRE, "SEQUENCE OWNED BY", schema, owner.displayName(),
                                "ALTER SEQUENCE " + name + " OWNED BY " + owner.sql() + "." + Jdbc.quote(r.getString(12)) + ";"));
                    }
                }
            }
        }
        return owners;
    }

    private static String sequenceValue(Connection c, String name) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT last_value, is_called FROM " + name); ResultSet r = ps.executeQuery()) {
            if (!r.next()) {
                return null;
            }
            return "SELECT pg_catalog.setval(" + Jdbc.literal(name) + ", " + r.getLong(1) + ", " + r.getBoolean(2) + ");";
        }
    }

    private static Map<Long, StringBuilder> columns(Connection c, Array oids, Map<Long, TableRef> tables) throws SQLException {
        String sql = """
                SELECT a.attrelid, a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull,
                       pg_catalog.pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated,
                       CASE WHEN a.attcollation <> t.typcollation AND a.attcollation <> 0
                            THEN pg_catalog.quote_ident(cn.nspname) || '.' || pg_catalog.quote_ident(co.collname) END,
                       cl.relpersistence, pg_catalog.array_to_string(cl.reloptions, ', ')
                FROM pg_catalog.pg_attribute a
                JOIN pg_catalog.pg_class cl ON cl.oid = a.attrelid
                JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
                LEFT JOIN pg_catalog.pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                LEFT JOIN pg_catalog.pg_collation co ON co.oid = a.attcollation
                LEFT JOIN pg_catalog.pg_namespace cn ON cn.oid = co.collnamespace
                WHERE a.attrelid = ANY (?) AND a.attnum > 0 AND NOT a.attisdropped
                ORDER BY a.attrelid, a.attnum
                """;
        Map<Long, List<String>> cols = new HashMap<>();
        Map<Long, String[]> options = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, oids);
            try (ResultSet r = ps.executeQuery()) {
                while (r.next()) {
                    long oid = r.getLong(1);
                    StringBuilder col = new StringBuilder(Jdbc.quote(r.getString(2))).append(' ').append(r.getString(3));
                    if (r.getString(8) != null) {
                        col.append(" COLLATE ").append(r.getString(8));
                    }
                    String identity = r.getString(6);
                    String generated = r.getString(7);
                    String expr = r.getString(5);
                    if ("s".equals(generated)) {
                        col.append(" GENERATED ALWAYS AS (").append(expr).append(") STORED");
                    } else if ("a".equals(identity)) {
                        col.append(" GENERATED ALWAYS AS IDENTITY");
                    } else if ("d".equals(identity)) {
                        col.append(" GENERATED BY DEFAULT AS IDENTITY");
                    } else if (expr != null) {
                        col.append(" DEFAULT ").append(expr);
                    }
                    if (r.getBoolean(4)) {
                        col.append(" NOT NULL");
                    }
                    cols.computeIfAbsent(oid, k -> new ArrayList<>()).add(col.toString());
                    options.putIfAbsent(oid, new String[] {r.getString(9), r.getString(10)});
                }
            }
        }
        Map<Long, StringBuilder> ddl = new HashMap<>();
        for (Map.Entry<Long, TableRef> e : tables.entrySet()) {
            String[] opt = options.getOrDefault(e.getKey(), new String[] {"p", null});
            StringBuilder sb = new StringBuilder("CREATE ");
            if ("u".equals(opt[0])) {
                sb.append("UNLOGGED ");
            }
            sb.append("TABLE ").append(e.getValue().sql()).append(" (");
            List<String> list = cols.getOrDefault(e.getKey(), List.of());
            for (int i = 0; i < list.size(); i++) {
                sb.append(i == 0 ? "\n    " : ",\n    ").append(list.get(i));
            }
            sb.append(list.isEmpty() ? ")" : "\n)");
            if (opt[1] != null && !opt[1].isEmpty()) {
                sb.append(" WITH (").append(opt[1]).append(')');
            }
            ddl.put(e.getKey(), sb.append(';'));
        }
        return ddl;
    }

    /** Identity columns restart where the source's sequence was. */
    private static void identityValues(Connection c, Array oids, Map<Long, TableRef> tables, List<SchemaScript.Entry> out) throws SQLException {
        String sql = """
                SELECT a.attrelid, a.attname,
                       pg_catalog.pg_sequence_last_value(pg_catalog.pg_get_serial_sequence(
                           pg_catalog.quote_ident(n.nspname) || '.' || pg_catalog.quote_ident(cl.relname), a.attname)::regclass)
                FROM pg_catalog.pg_attribute a
                JOIN pg_catalog.pg_class cl ON cl.oid = a.attrelid
                JOIN pg_catalog.pg_namespace n ON n.oid = cl.relnamespace
                WHERE a.attrelid = ANY (?) AND a.attidentity <> '' AND NOT a.attisdropped
                ORDER BY a.attrelid::regclass::text, a.attnum
                """;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, oids);
            try (ResultSet r = ps.executeQuery()) {
                while (r.next()) {
                    long last = r.getLong(3);
                    if (r.wasNull()) {
                        continue;
                    }
                    TableRef t = tables.get(r.getLong(1));
                    out.add(new SchemaScript.Entry(SchemaScript.Section.POST, "IDENTITY SET", t.schema(), t.displayName(),
                            "SELECT pg_catalog.setval(pg_catalog.pg_get_serial_sequence(" + Jdbc.literal(t.sql()) + ", "
                                    + Jdbc.literal(r.getString(2)) + "), " + last + ", true);"));
                }
            }
        }
    }

    private static void constraints(Connection c, Array oids, Map<Long, TableRef> tables, List<SchemaScript.Entry> out) throws SQLException {
        String sql = """
                SELECT conrelid, conname, contype, pg_catalog.pg_get_constraintdef(oid), confrelid
                FROM pg_catalog.pg_constraint
                WHERE conrelid = ANY (?) AND contype IN ('c', 'p', 'u', 'x', 'f')
                ORDER BY CASE contype WHEN 'c' THEN 0 WHEN 'f' THEN 2 ELSE 1 END, conrelid::regclass::text, conname
                """;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, oids);
            try (ResultSet r = ps.executeQuery()) {
                while (r.next()) {
                    TableRef t = tables.get(r.getLong(1));
                    String type = r.getString(3);
                    if ("f".equals(type) && !tables.containsKey(r.getLong(5))) {
                        continue; // its target is not in this backup: the restore could not create it
                    }
                    SchemaScript.Section section = "c".equals(type) ? SchemaScript.Section.PRE : SchemaScript.Section.POST;
                    String kind = switch (type) {
                        case "c" -> "CHECK CONSTRAINT";
                        case "f" -> "FK CONSTRAINT";
                        default -> "CONSTRAINT";
                    };
                    out.add(new SchemaScript.Entry(section, kind, t.schema(), t.displayName(),
                            "ALTER TABLE ONLY " + t.sql() + " ADD CONSTRAINT " + Jdbc.quote(r.getString(2)) + " " + r.getString(4) + ";"));
                }
            }
        }
    }

    private static void indexes(Connection c, Array oids, Map<Long, TableRef> tables, List<SchemaScript.Entry> out) throws SQLException {
        String sql = """
                SELECT i.indrelid, pg_catalog.pg_get_indexdef(i.indexrelid)
                FROM pg_catalog.pg_index i
                WHERE i.indrelid = ANY (?)
                  AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))
                ORDER BY i.indrelid::regclass::text, i.indexrelid::regclass::text
                """;
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setArray(1, oids);
            try (ResultSet r = ps.executeQuery()) {
                while (r.next()) {
                    TableRef t = tables.get(r.getLong(1));
                    out.add(new SchemaScript.Entry(SchemaScript.Section.POST, "INDEX", t.schema(), t.displayName(), r.getString(2) + ";"));
                }
            }
        }
    }
}
