package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SchemaScriptTest {
    private static final SchemaScript SCRIPT = new SchemaScript(List.of(
            new SchemaScript.Entry(SchemaScript.Section.PRE, "SCHEMA", "a", null, "CREATE SCHEMA IF NOT EXISTS \"a\";"),
            new SchemaScript.Entry(SchemaScript.Section.PRE, "SCHEMA", "b", null, "CREATE SCHEMA IF NOT EXISTS \"b\";"),
            new SchemaScript.Entry(SchemaScript.Section.PRE, "TABLE", "a", "a.t1", "CREATE TABLE \"a\".\"t1\" (\n    \"x\" text DEFAULT '-- gpdedup: no'\n);"),
            new SchemaScript.Entry(SchemaScript.Section.PRE, "TABLE", "b", "b.t2", "CREATE TABLE \"b\".\"t2\" (\"y\" int);"),
            new SchemaScript.Entry(SchemaScript.Section.POST, "CONSTRAINT", "a", "a.t1", "ALTER TABLE ONLY \"a\".\"t1\" ADD CONSTRAINT k PRIMARY KEY (x);"),
            new SchemaScript.Entry(SchemaScript.Section.POST, "INDEX", "b", "b.t2", "CREATE INDEX i ON b.t2 USING btree (y);")));

    @Test
    void writesAndReadsBackEveryStatement(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("metadata.sql");
        SCRIPT.write(file);
        assertEquals(SCRIPT.entries(), SchemaScript.read(file).entries());
    }

    @Test
    void selectsTheStatementsOfTheChosenTablesAndTheirSchemas() {
        List<SchemaScript.Entry> pre = SCRIPT.select(SchemaScript.Section.PRE, List.of("a.t1"));
        assertEquals(List.of("SCHEMA a", "TABLE a.t1"), pre.stream().map(e -> e.kind() + " " + (e.table() == null ? e.schema() : e.table())).toList());
        List<SchemaScript.Entry> post = SCRIPT.select(SchemaScript.Section.POST, List.of("a.t1", "b.t2"));
        assertEquals(List.of("CONSTRAINT", "INDEX"), post.stream().map(SchemaScript.Entry::kind).toList());
    }
}
