package io.gpdedup.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ResultTableTest {
    @Test
    void printsAlignedColumnsWithNumbersToTheRight() {
        ResultTable t = new ResultTable("T", "threads", "MB/s").add(1, 204.04).add(20, 3413.0).add(30, null);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        t.print(new PrintStream(out, true, StandardCharsets.UTF_8));
        String[] lines = out.toString(StandardCharsets.UTF_8).split("\n");
        assertEquals("T", lines[0]);
        assertEquals("threads  MB/s", lines[1]);
        assertEquals("      1   204.0", lines[3]);
        assertEquals("     20  3413.0", lines[4]);
        assertTrue(lines[5].endsWith("—"));
    }

    @Test
    void markdownEscapesPipes() {
        String md = new ResultTable("", "a", "b").add("x|y", 2).toMarkdown();
        assertTrue(md.contains("| x\\|y | 2 |"), md);
    }

    @Test
    void rowOfWrongWidthIsRejected() {
        ResultTable t = new ResultTable("T", "a", "b");
        assertThrows(IllegalArgumentException.class, () -> t.add(1));
    }
}
