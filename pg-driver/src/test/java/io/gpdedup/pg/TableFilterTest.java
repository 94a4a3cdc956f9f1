package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TableFilterTest {
    @ParameterizedTest
    @CsvSource({
        "gen.small_*, gen, small_001, true",
        "gen.small_*, gen, large_001, false",
        "gen.small_00?, gen, small_0010, false",
        "gen.small_00?, gen, small_007, true",
        "*.orders, sales, orders, true",
        "g.n, gen, n, false",
        "sales.a.b, sales, a.b, true",
    })
    void includePatterns(String pattern, String schema, String table, boolean accepted) {
        assertEquals(accepted, TableFilter.includeTables(List.of(pattern)).accepts(schema, table));
    }

    @Test
    void excludesWinOverIncludesAndSchemasCount() {
        TableFilter f = new TableFilter(List.of("gen.*"), List.of("gen.empty_*"), List.of("gen"), List.of("tmp"));
        assertEquals(true, f.accepts("gen", "small_001"));
        assertEquals(false, f.accepts("gen", "empty_001"));
        assertEquals(false, f.accepts("public", "small_001"));
        assertEquals(false, new TableFilter(List.of(), List.of(), List.of(), List.of("tmp")).accepts("tmp", "x"));
        assertEquals(true, TableFilter.ALL.accepts("any", "thing"));
    }

    @Test
    void aPatternWithoutSchemaIsAClearError() {
        assertThrows(IllegalArgumentException.class, () -> TableFilter.includeTables(List.of("orders")));
    }
}
