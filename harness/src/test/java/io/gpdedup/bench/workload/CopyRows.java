package io.gpdedup.bench.workload;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Test-side reader of COPY text: splits rows and fields and undoes the escapes, strictly. */
final class CopyRows {
    private CopyRows() {
    }

    static String text(TableVersion v) {
        try (InputStream in = v.open()) {
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Raw rows, each without its newline. */
    static List<String> rows(String text) {
        if (!text.endsWith("\n")) {
            throw new AssertionError("COPY text must end with a newline");
        }
        List<String> rows = new ArrayList<>(List.of(text.split("\n", -1)));
        rows.remove(rows.size() - 1);
        return rows;
    }

    static long id(String row) {
        return Long.parseLong(row.substring(0, row.indexOf('\t')));
    }

    /** Decoded field values of one row, null for {@code \N}; fails on anything COPY would reject. */
    static List<String> fields(String row) {
        List<String> out = new ArrayList<>();
        for (String f : row.split("\t", -1)) {
            out.add(f.equals("\\N") ? null : unescape(f));
        }
        return out;
    }

    static String unescape(String f) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < f.length(); i++) {
            char c = f.charAt(i);
            if (c == '\r' || c == '\n' || c == '\t') {
                throw new AssertionError("raw control character in a field: " + f);
            }
            if (c != '\\') {
                b.write(c);
                continue;
            }
            if (++i == f.length()) {
                throw new AssertionError("dangling backslash: " + f);
            }
            switch (f.charAt(i)) {
                case '\\' -> b.write('\\');
                case 't' -> b.write('\t');
                case 'n' -> b.write('\n');
                case 'r' -> b.write('\r');
                default -> throw new AssertionError("unexpected escape \\" + f.charAt(i) + " in " + f);
            }
        }
        return b.toString(StandardCharsets.US_ASCII);
    }
}
