package io.gpdedup.pg;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;

/**
 * The metadata file of a backup: SQL statements in restore order, each under a one-line JSON
 * header naming its section (pre-data before the table data, post-data after it, as pg_dump and
 * gpbackup split them), its kind and the table it belongs to, so a restore of some tables can
 * pick their statements.
 */
public final class SchemaScript {
    private static final String HEADER = "-- gpdedup: ";
    private static final ObjectMapper JSON = new ObjectMapper().setSerializationInclusion(JsonInclude.Include.NON_NULL);

    public enum Section { PRE, POST }

    /** One statement; {@code table} is {@code schema.name} for per-table statements, else null. */
    public record Entry(Section section, String kind, String schema, String table, String sql) {
    }

    private final List<Entry> entries;

    public SchemaScript(List<Entry> entries) {
        this.entries = List.copyOf(entries);
    }

    public List<Entry> entries() {
        return entries;
    }

    /** Statements of a section for the given tables: schema-level ones of their schemas, theirs, and nothing else. */
    public List<Entry> select(Section section, Collection<String> tables) {
        Set<String> names = Set.copyOf(tables);
        Set<String> schemas = new java.util.HashSet<>();
        for (String t : names) {
            schemas.add(t.substring(0, t.indexOf('.')));
        }
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            if (e.section() != section) {
                continue;
            }
            boolean wanted = e.table() != null ? names.contains(e.table()) : e.schema() == null || schemas.contains(e.schema());
            if (wanted) {
                out.add(e);
            }
        }
        return out;
    }

    public void write(Path file) throws IOException {
        StringBuilder sb = new StringBuilder("-- gpdedup-bench pg backup metadata: one statement per header line\n");
        for (Entry e : entries) {
            sb.append(HEADER).append(header(e)).append('\n').append(e.sql().strip()).append('\n');
        }
        Files.writeString(file, sb.toString(), StandardCharsets.UTF_8);
    }

    public static SchemaScript read(Path file) throws IOException {
        List<Entry> entries = new ArrayList<>();
        Entry pending = null;
        StringBuilder sql = new StringBuilder();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (line.startsWith(HEADER)) {
                if (pending != null) {
                    entries.add(withSql(pending, sql));
                }
                pending = JSON.readValue(line.substring(HEADER.length()), Entry.class);
                sql.setLength(0);
            } else if (pending != null) {
                sql.append(line).append('\n');
            }
        }
        if (pending != null) {
            entries.add(withSql(pending, sql));
        }
        return new SchemaScript(entries);
    }

    private static Entry withSql(Entry header, StringBuilder sql) {
        return new Entry(header.section(), header.kind(), header.schema(), header.table(), sql.toString().strip());
    }

    private static String header(Entry e) throws JsonProcessingException {
        return JSON.writeValueAsString(new Entry(e.section(), e.kind(), e.schema(), e.table(), null));
    }
}
