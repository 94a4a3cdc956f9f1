package io.gpdedup.bench.report;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * A titled table of results: what every runner prints on stdout, writes as CSV/JSON and puts in the
 * report. Cells are kept as given (numbers stay numbers for JSON); {@link #cell} renders them:
 * integers as is, other numbers with one decimal ({@link Figures#fixed}), {@code null} as "—".
 */
public final class ResultTable {
    private final String title;
    private final List<String> columns;
    private final List<List<Object>> rows = new ArrayList<>();

    public ResultTable(String title, String... columns) {
        this(title, List.of(columns));
    }

    public ResultTable(String title, List<String> columns) {
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("a table needs at least one column");
        }
        this.title = title;
        this.columns = List.copyOf(columns);
    }

    /** Adds a row; it must have one cell per column. Returns this table. */
    public ResultTable add(Object... cells) {
        if (cells.length != columns.size()) {
            throw new IllegalArgumentException("table '" + title + "' has " + columns.size() + " columns, row has " + cells.length);
        }
        rows.add(Collections.unmodifiableList(Arrays.asList(cells.clone())));
        return this;
    }

    public String title() {
        return title;
    }

    public List<String> columns() {
        return columns;
    }

    public List<List<Object>> rows() {
        return Collections.unmodifiableList(rows);
    }

    /** A cell as text. */
    public static String cell(Object v) {
        if (v == null) {
            return "—";
        }
        if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            return Figures.fixed(d, 1);
        }
        return v.toString();
    }

    /** Prints the title and the table with aligned columns (numbers to the right). */
    public void print(PrintStream out) {
        int[] width = new int[columns.size()];
        for (int c = 0; c < width.length; c++) {
            width[c] = columns.get(c).length();
            for (List<Object> r : rows) {
                width[c] = Math.max(width[c], cell(r.get(c)).length());
            }
        }
        StringBuilder sb = new StringBuilder();
        if (title != null && !title.isEmpty()) {
            sb.append(title).append('\n');
        }
        line(sb, columns.stream().map(s -> (Object) s).toList(), width, false);
        for (int c = 0; c < width.length; c++) {
            sb.append(c == 0 ? "" : "  ").append("-".repeat(width[c]));
        }
        sb.append('\n');
        for (List<Object> r : rows) {
            line(sb, r, width, true);
        }
        out.print(sb);
        out.flush();
    }

    /** The table as GitHub Markdown (title as a bold line above it). */
    String toMarkdown() {
        StringBuilder sb = new StringBuilder();
        if (title != null && !title.isEmpty()) {
            sb.append("**").append(title).append("**\n\n");
        }
        sb.append("| ").append(String.join(" | ", columns)).append(" |\n|");
        for (int c = 0; c < columns.size(); c++) {
            sb.append("---|");
        }
        sb.append('\n');
        for (List<Object> r : rows) {
            sb.append("| ");
            for (int c = 0; c < r.size(); c++) {
                sb.append(c == 0 ? "" : " | ").append(cell(r.get(c)).replace("|", "\\|"));
            }
            sb.append(" |\n");
        }
        return sb.toString();
    }

    private static void line(StringBuilder sb, List<Object> cells, int[] width, boolean alignNumbers) {
        for (int c = 0; c < width.length; c++) {
            String s = cell(cells.get(c));
            boolean right = alignNumbers && cells.get(c) instanceof Number;
            sb.append(c == 0 ? "" : "  ");
            String pad = " ".repeat(width[c] - s.length());
            sb.append(right ? pad + s : c == width.length - 1 ? s : s + pad);
        }
        sb.append('\n');
    }
}
