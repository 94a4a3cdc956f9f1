package io.gpdedup.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunFilesTest {
    @Test
    void csvRoundTripsAwkwardCells(@TempDir Path dir) throws Exception {
        ResultTable t = new ResultTable("odd", "name", "value")
                .add("plain", 1)
                .add("comma, inside", 2.5)
                .add("quote \" inside", null)
                .add("line\nbreak", -3);
        RunFiles files = RunFiles.in(dir.resolve("run"));
        Path csv = files.csv("odd", t);
        List<List<String>> rows = RunFiles.readCsv(csv);
        assertEquals(List.of("name", "value"), rows.get(0));
        assertEquals(List.of("comma, inside", "2.5"), rows.get(2));
        assertEquals(List.of("quote \" inside", ""), rows.get(3));
        assertEquals(List.of("line\nbreak", "-3"), rows.get(4));
        assertEquals(5, rows.size());
    }

    @Test
    void jsonKeepsNumbersAsNumbers(@TempDir Path dir) throws Exception {
        RunFiles files = RunFiles.in(dir);
        files.table("t", new ResultTable("title", "threads", "MB/s").add(10, 2560.5));
        JsonNode n = new ObjectMapper().readTree(dir.resolve("t.json").toFile());
        assertEquals("title", n.get("title").asText());
        assertTrue(n.get("rows").get(0).get("MB/s").isDouble());
        assertEquals(10, n.get("rows").get(0).get("threads").asInt());
        files.json("free", Map.of("k", List.of(1, 2)));
        assertTrue(Files.readString(dir.resolve("free.json")).contains("\"k\""));
        assertTrue(Files.exists(dir.resolve("t.csv")));
    }

    @Test
    void unclosedQuoteIsAnError(@TempDir Path dir) throws Exception {
        Path bad = Files.writeString(dir.resolve("bad.csv"), "a,b\n\"open,2\n");
        assertTrue(org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> RunFiles.readCsv(bad))
                .getMessage().contains("not closed"));
    }
}
