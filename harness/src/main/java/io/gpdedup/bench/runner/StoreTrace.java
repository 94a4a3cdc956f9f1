package io.gpdedup.bench.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Reads the appliance trace the store writes with {@code --appliance-trace} (docs/store.md): the
 * bytes its throttle let through per stream and per 100 ms, labelled with object names.
 */
final class StoreTrace {
    /** One row: {@code bytes} of stream {@code flow} (object {@code label}) in the bucket starting at {@code startMs}. */
    public record Row(String kind, long flow, String label, long startMs, long bytes) {
    }

    private StoreTrace() {
    }

    public static List<Row> read(Path file) throws IOException {
        List<Row> rows = new ArrayList<>();
        if (file == null || !Files.exists(file)) {
            return rows;
        }
        List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        for (int i = 1; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            List<String> f = split(line);
            if (f.size() != 5) {
                throw new IOException(file + " line " + (i + 1) + ": expected 5 fields, got " + f.size());
            }
            rows.add(new Row(f.get(0), Long.parseLong(f.get(1)), f.get(2), Long.parseLong(f.get(3)), Long.parseLong(f.get(4))));
        }
        return rows;
    }

    /** CSV fields, with "..." quoting. */
    static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cur.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    cur.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                out.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out;
    }

    /**
     * Timelines of the rows {@code keep} selects, one per key {@code key} gives (e.g. the host of an
     * object name), from {@code startMs}; keys are 0-based indexes below {@code groups}.
     */
    public static Timeline[] timelines(List<Row> rows, Predicate<Row> keep, Function<Row, Integer> key, int groups, long startMs,
            int bucketMs) {
        Timeline[] t = new Timeline[groups];
        for (int g = 0; g < groups; g++) {
            t[g] = new Timeline(startMs, bucketMs);
        }
        for (Row r : rows) {
            if (keep.test(r)) {
                Integer g = key.apply(r);
                if (g != null && g >= 0 && g < groups) {
                    t[g].add(r.startMs(), r.bytes());
                }
            }
        }
        return t;
    }
}
