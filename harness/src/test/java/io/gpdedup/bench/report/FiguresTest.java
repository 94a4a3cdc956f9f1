package io.gpdedup.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Numbers as the kit writes them: no negative zero, no exponent, no binary noise. */
class FiguresTest {
    @Test
    void fixedDecimalsNeverShowNegativeZero() {
        assertEquals("0.0", Figures.fixed(-0.0, 1));
        assertEquals("0.0", Figures.fixed(-0.04, 1));
        assertEquals("-0.1", Figures.fixed(-0.06, 1), "a negative figure that does not round to zero keeps its sign");
        assertEquals("1137.0", Figures.fixed(1136.96, 1));
        assertEquals("—", Figures.fixed(Double.NaN, 1));
    }

    @Test
    void plainFiguresHaveNoExponentNorNoise() {
        assertEquals("67.96", Figures.plain(67.96000000000001));
        assertEquals("-0.000329962", Figures.plain(-3.299616602561173E-4));
        assertEquals("1250000", Figures.plain(1.25e6));
        assertEquals("0", Figures.plain(-0.0));
        assertEquals("2594", Figures.significant(2593.7, 3), "whole digits are never rounded away");
        assertEquals("0.02", Figures.significant(0.02, 3));
    }

    @Test
    void tablesAndCsvGoThroughThem(@TempDir Path dir) throws Exception {
        ResultTable t = new ResultTable("t", "a", "b").add(-0.0001, 67.96000000000001).add(-3.299616602561173E-4, 1e-9);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        t.print(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
        String printed = out.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(List.of("0.0", "68.0", "0.0", "0.0"), printed.lines().skip(3).flatMap(l -> List.of(l.trim().split("\\s+")).stream()).toList());
        Path csv = RunFiles.in(dir).csv("t", t);
        assertEquals(List.of(List.of("a", "b"), List.of("-0.0001", "67.96"), List.of("-0.000329962", "0.000000001")), RunFiles.readCsv(csv));
    }
}
