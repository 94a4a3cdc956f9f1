package io.gpdedup.bench.report;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.Font;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.Styler.LegendPosition;
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
    void legendsStayOutOfThePlotLongTitlesShrinkAndASeriesMayHaveItsOwnAxis() {
        Map<String, double[]> groups = new LinkedHashMap<>();
        groups.put("ours", new double[] {900, 10});
        groups.put("published", new double[] {1000, 20});
        CategoryChart bars = Charts.barChart("t", "run", "MB", List.of("#1 multi-file (jobs)", "#2 same, repeated"), groups, false, false);
        assertEquals(LegendPosition.OutsideE, bars.getStyler().getLegendPosition(), "a legend inside the plot covers the first bars");
        assertEquals(30, bars.getStyler().getXAxisLabelRotation(), "long run names are turned so they do not overlap");

        String longTitle = "D. gpbackup to the appliance, single-data-file mode, 3 hosts x 4 segments: MB/s by run";
        CategoryChart titled = Charts.barChart(longTitle, "phase", "MB/s", List.of("backup"), Map.of("ours", new double[] {1}), false, false);
        Font font = titled.getStyler().getChartTitleFont();
        BufferedImage scratch = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB);
        assertTrue(scratch.createGraphics().getFontMetrics(font).stringWidth(longTitle) <= Charts.TITLE_WIDTH, "title fits: " + font);
        assertEquals(Charts.barChart("short", "x", "y", List.of("a"), Map.of("ours", new double[] {1}), false, false)
                .getStyler().getChartTitleFont().getSize(), new org.knowm.xchart.style.CategoryStyler().getChartTitleFont().getSize(),
                "a title that fits keeps the default font");

        XYChart line = Charts.lineChart("t", "s", "MB/s", List.of(new Charts.Series("host1", new double[] {0, 1}, new double[] {5, 6}),
                new Charts.Series("read from disk", new double[] {0, 1}, new double[] {500, 600}, "read MB/s")));
        assertEquals(0, line.getSeriesMap().get("host1").getYAxisGroup());
        assertEquals(1, line.getSeriesMap().get("read from disk").getYAxisGroup());
        assertEquals("read MB/s", line.getYAxisGroupTitle(1));
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
