package io.gpdedup.bench.report;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run's output directory ({@code --out DIR}): CSV and JSON files beside the PNG charts, which
 * {@code gpdedup-bench report DIR} turns into one page. CSV is RFC 4180 (quotes doubled, fields
 * with a comma, quote or newline quoted), first row the header; numbers unformatted.
 */
public final class RunFiles {
    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final Path dir;

    private RunFiles(Path dir) {
        this.dir = dir;
    }

    /** Opens (creating it if needed) an output directory. */
    public static RunFiles in(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create output directory " + dir, e);
        }
        return new RunFiles(dir);
    }

    public Path dir() {
        return dir;
    }

    /** A file name inside the directory. */
    public Path file(String name) {
        return dir.resolve(name);
    }

    /** Writes {@code <name>.csv} (the rows) and returns its path. */
    public Path csv(String name, ResultTable table) {
        StringBuilder sb = new StringBuilder();
        sb.append(csvLine(table.columns().stream().map(s -> (Object) s).toList()));
        for (List<Object> r : table.rows()) {
            sb.append(csvLine(r));
        }
        return write(name + ".csv", sb.toString());
    }

    /**
     * Writes {@code <name>.json}: a value Jackson can serialise (records, maps, lists), or a
     * {@link ResultTable} as {@code {"title", "columns", "rows": [{column: value}]}}.
     */
    public Path json(String name, Object value) {
        Object v = value instanceof ResultTable t ? tableAsMap(t) : value;
        try {
            return write(name + ".json", JSON.writeValueAsString(v) + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot serialise " + name + ".json", e);
        }
    }

    /** The table as the JSON form {@link #json} writes. */
    static Map<String, Object> tableAsMap(ResultTable t) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (List<Object> r : t.rows()) {
            Map<String, Object> m = new LinkedHashMap<>();
            for (int c = 0; c < r.size(); c++) {
                m.put(t.columns().get(c), r.get(c));
            }
            rows.add(m);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("title", t.title());
        out.put("columns", t.columns());
        out.put("rows", rows);
        return out;
    }

    /** Writes {@code run.json}, which heads the report page: what ran, with which command line. */
    public Path info(String title, String command, List<String> notes) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("title", title);
        m.put("command", command);
        m.put("notes", List.copyOf(notes));
        return json("run", m);
    }

    /** Writes the table both ways: {@code <name>.csv} and {@code <name>.json}. */
    public void table(String name, ResultTable table) {
        csv(name, table);
        json(name, table);
    }

    /** Reads a CSV file written by {@link #csv} (or any RFC 4180 file) as rows of strings. */
    public static List<List<String>> readCsv(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (int i = 0; i < text.length(); i++) {
            char ch = text.charAt(i);
            if (quoted) {
                if (ch == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (ch == '"') {
                    quoted = false;
                } else {
                    field.append(ch);
                }
            } else if (ch == '"') {
                quoted = true;
                any = true;
            } else if (ch == ',') {
                row.add(field.toString());
                field.setLength(0);
                any = true;
            } else if (ch == '\n' || ch == '\r') {
                if (ch == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') {
                    i++;
                }
                if (any || field.length() > 0) {
                    row.add(field.toString());
                    rows.add(row);
                }
                row = new ArrayList<>();
                field.setLength(0);
                any = false;
            } else {
                field.append(ch);
                any = true;
            }
        }
        if (quoted) {
            throw new IOException(file + ": a quoted field is not closed");
        }
        if (any || field.length() > 0) {
            row.add(field.toString());
            rows.add(row);
        }
        return rows;
    }

    private Path write(String name, String text) {
        Path p = dir.resolve(name);
        try {
            Path tmp = dir.resolve(name + ".tmp");
            Files.writeString(tmp, text, StandardCharsets.UTF_8);
            Files.move(tmp, p, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + p, e);
        }
    }

    private static String csvLine(List<Object> cells) {
        StringBuilder sb = new StringBuilder();
        for (int c = 0; c < cells.size(); c++) {
            Object v = cells.get(c);
            String s = v == null ? "" : v instanceof Double d ? (Double.isFinite(d) ? Figures.plain(d) : "") : v.toString();
            if (s.indexOf(',') >= 0 || s.indexOf('"') >= 0 || s.indexOf('\n') >= 0 || s.indexOf('\r') >= 0) {
                s = '"' + s.replace("\"", "\"\"") + '"';
            }
            sb.append(c == 0 ? "" : ",").append(s);
        }
        return sb.append('\n').toString();
    }
}
