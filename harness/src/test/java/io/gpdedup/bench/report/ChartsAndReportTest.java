package io.gpdedup.bench.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChartsAndReportTest {
    private static final byte[] PNG = {(byte) 0x89, 'P', 'N', 'G'};

    @Test
    void chartsAreWrittenAsPng(@TempDir Path dir) throws Exception {
        Path line = Charts.line(dir.resolve("sweep-timeline.png"), "t", "s", "MB/s",
                List.of(new Charts.Series("host1", new double[] {0, 1, 2}, new double[] {5, 6, 4})));
        Map<String, double[]> groups = new LinkedHashMap<>();
        groups.put("model", new double[] {1, 2});
        groups.put("published", new double[] {1.5, Double.NaN});
        Path bars = Charts.bars(dir.resolve("sweep.png"), "t", "threads", "MB/s", List.of("1", "10"), groups);
        Path log = Charts.bars(dir.resolve("log.png"), "t", "run", "MB/s", List.of("1", "10"), groups, true);
        for (Path p : List.of(line, bars, log)) {
            assertArrayEquals(PNG, Arrays.copyOf(Files.readAllBytes(p), 4), p.toString());
        }
    }

    @Test
    void reportHasTheTablesThenTheirCharts(@TempDir Path dir) throws Exception {
        RunFiles files = RunFiles.in(dir);
        files.info("A run", "gpdedup-bench x --y", List.of("a note"));
        ResultTable t = new ResultTable("Sweep by threads", "threads", "MB/s");
        for (int i = 0; i < 70; i++) {
            t.add(i, i * 10.25);
        }
        files.table("sweep", t);
        Charts.line(files.file("sweep-timeline.png"), "t", "s", "MB/s",
                List.of(new Charts.Series("h", new double[] {0, 1}, new double[] {1, 2})));
        Charts.line(files.file("other.png"), "t", "s", "MB/s", List.of());
        String md = ReportCommand.render(dir, 60);
        assertTrue(md.startsWith("# A run\n"), md);
        assertTrue(md.contains("gpdedup-bench x --y"));
        assertTrue(md.contains("- a note"));
        assertTrue(md.contains("## Sweep by threads"));
        assertTrue(md.contains("| 3 | 30.8 |"), "numbers shown as in the printed table");
        assertTrue(md.contains("10 more rows in sweep.csv"));
        assertTrue(md.indexOf("sweep-timeline.png") > md.indexOf("## Sweep by threads"));
        assertTrue(md.indexOf("other.png") > md.indexOf("## Charts"));
    }

    @Test
    void reportCommandRefusesAMissingDirectory(@TempDir Path dir) throws Exception {
        ReportCommand c = new ReportCommand();
        c.dir = dir.resolve("nope");
        c.maxRows = 10;
        assertEquals(2, c.call());
        assertFalse(Files.exists(dir.resolve("nope")));
    }
}
