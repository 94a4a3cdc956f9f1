package io.gpdedup.pg;

import java.util.List;
import java.util.regex.Pattern;

/**
 * gpbackup's table selection: {@code --include-table}/{@code --exclude-table} take
 * {@code schema.table} patterns ({@code *} and {@code ?} as in a shell), {@code --include-schema}/
 * {@code --exclude-schema} exact schema names. An empty include list selects everything.
 */
public final class TableFilter {
    public static final TableFilter ALL = new TableFilter(List.of(), List.of(), List.of(), List.of());

    private final List<Pattern> includeTables;
    private final List<Pattern> excludeTables;
    private final List<String> includeSchemas;
    private final List<String> excludeSchemas;

    public TableFilter(List<String> includeTables, List<String> excludeTables, List<String> includeSchemas, List<String> excludeSchemas) {
        this.includeTables = includeTables.stream().map(TableFilter::glob).toList();
        this.excludeTables = excludeTables.stream().map(TableFilter::glob).toList();
        this.includeSchemas = List.copyOf(includeSchemas);
        this.excludeSchemas = List.copyOf(excludeSchemas);
    }

    public static TableFilter includeTables(List<String> patterns) {
        return new TableFilter(patterns, List.of(), List.of(), List.of());
    }

    boolean selectsAll() {
        return includeTables.isEmpty() && excludeTables.isEmpty() && includeSchemas.isEmpty() && excludeSchemas.isEmpty();
    }

    public boolean accepts(String schema, String table) {
        String name = schema + "." + table;
        if (!includeSchemas.isEmpty() && !includeSchemas.contains(schema)) {
            return false;
        }
        if (excludeSchemas.contains(schema)) {
            return false;
        }
        if (!includeTables.isEmpty() && includeTables.stream().noneMatch(p -> p.matcher(name).matches())) {
            return false;
        }
        return excludeTables.stream().noneMatch(p -> p.matcher(name).matches());
    }

    private static Pattern glob(String pattern) {
        if (pattern.indexOf('.') < 0) {
            throw new IllegalArgumentException("table pattern '" + pattern + "' must be schema.table (for example public.orders or sales.*)");
        }
        StringBuilder re = new StringBuilder();
        for (char ch : pattern.toCharArray()) {
            switch (ch) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                default -> re.append(Pattern.quote(String.valueOf(ch)));
            }
        }
        return Pattern.compile(re.toString());
    }
}
