package io.gpdedup.bench.report;

import java.awt.Font;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.BitmapEncoder.BitmapFormat;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.XYSeries.XYSeriesRenderStyle;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.Styler.LegendPosition;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * PNG charts with XChart, drawn headless: line charts for per-second timelines, grouped bar charts
 * for sweeps over threads, hosts, jobs or copy-queue-size (ours next to the published figure),
 * stacked bar charts for where a run's time goes.
 */
public final class Charts {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 500;
    /** XChart centres the title over the plot, which a legend beside it narrows: the room a title has. */
    static final int TITLE_WIDTH = WIDTH - 260;

    private Charts() {
    }

    /**
     * One line: its name and its points; {@code ownAxis}: null to share the left y axis, else the
     * title of a right-hand axis of its own (a quantity whose scale would flatten the other lines).
     */
    public record Series(String name, double[] x, double[] y, String ownAxis) {
        public Series {
            if (x.length != y.length) {
                throw new IllegalArgumentException("series " + name + ": " + x.length + " x values, " + y.length + " y values");
            }
        }

        public Series(String name, double[] x, double[] y) {
            this(name, x, y, null);
        }
    }

    /** Writes a line chart (e.g. MB/s per second, one line per host or stream) to {@code png}. */
    public static Path line(Path png, String title, String xTitle, String yTitle, List<Series> series) {
        return save(lineChart(title, xTitle, yTitle, series), png);
    }

    static XYChart lineChart(String title, String xTitle, String yTitle, List<Series> series) {
        headless();
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        fitTitle(chart, title);
        chart.getStyler().setDefaultSeriesRenderStyle(XYSeriesRenderStyle.Line);
        chart.getStyler().setLegendPosition(LegendPosition.OutsideE);
        chart.getStyler().setLegendVisible(series.size() > 1);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        for (Series s : series) {
            if (s.x().length == 0) {
                continue;
            }
            XYSeries added = chart.addSeries(s.name(), s.x(), s.y());
            added.setMarker(SeriesMarkers.NONE);
            if (s.ownAxis() != null) {
                added.setYAxisGroup(1);
                chart.setYAxisGroupTitle(1, s.ownAxis());
                chart.getStyler().setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
            }
        }
        if (chart.getSeriesMap().isEmpty()) {
            chart.addSeries("(no data)", new double[] {0}, new double[] {0}).setMarker(SeriesMarkers.NONE);
        }
        return chart;
    }

    /**
     * Writes a grouped bar chart to {@code png}: one bar per category in each group, e.g. categories
     * "1", "10", "20" threads and groups "ours" and "published".
     */
    public static Path bars(Path png, String title, String xTitle, String yTitle, List<String> categories,
            Map<String, double[]> groups) {
        return bars(png, title, xTitle, yTitle, categories, groups, false);
    }

    /** As {@link #bars(Path, String, String, String, List, Map)}, with a logarithmic y axis when {@code logY}. */
    public static Path bars(Path png, String title, String xTitle, String yTitle, List<String> categories,
            Map<String, double[]> groups, boolean logY) {
        return categoryChart(png, title, xTitle, yTitle, categories, groups, logY, false);
    }

    /**
     * Writes a stacked bar chart to {@code png}: one bar per category made of one part per group,
     * e.g. a run's minutes split by what they are spent on.
     */
    public static Path stackedBars(Path png, String title, String xTitle, String yTitle, List<String> categories,
            Map<String, double[]> parts) {
        return categoryChart(png, title, xTitle, yTitle, categories, parts, false, true);
    }

    private static Path categoryChart(Path png, String title, String xTitle, String yTitle, List<String> categories,
            Map<String, double[]> groups, boolean logY, boolean stacked) {
        return save(barChart(title, xTitle, yTitle, categories, groups, logY, stacked), png);
    }

    static CategoryChart barChart(String title, String xTitle, String yTitle, List<String> categories,
            Map<String, double[]> groups, boolean logY, boolean stacked) {
        headless();
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xTitle).yAxisTitle(yTitle).build();
        fitTitle(chart, title);
        // Outside the plot: inside, the legend covers the tallest bars of the first categories.
        chart.getStyler().setLegendPosition(LegendPosition.OutsideE);
        if (categories.stream().anyMatch(c -> c.length() > 8)) {
            chart.getStyler().setXAxisLabelRotation(30);
        }
        chart.getStyler().setStacked(stacked);
        chart.getStyler().setShowStackSum(stacked);
        chart.getStyler().setYAxisLogarithmic(logY);
        if (logY) {
            chart.getStyler().setYAxisMin(1.0);
        }
        chart.getStyler().setLegendVisible(groups.size() > 1);
        chart.getStyler().setChartBackgroundColor(java.awt.Color.WHITE);
        for (var g : groups.entrySet()) {
            if (g.getValue().length != categories.size()) {
                throw new IllegalArgumentException("bar group " + g.getKey() + ": " + g.getValue().length + " values for "
                        + categories.size() + " categories");
            }
            // a log axis cannot show 0; NaN (no figure) draws as nothing
            double floor = logY ? 1e-3 : 0;
            List<Double> ys = java.util.Arrays.stream(g.getValue()).map(v -> Double.isNaN(v) ? floor : Math.max(floor, v)).boxed().toList();
            chart.addSeries(g.getKey(), categories, ys);
        }
        return chart;
    }

    /** A title too wide for the chart is drawn in a smaller font, down to 9 pt, rather than clipped. */
    private static void fitTitle(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, String title) {
        Font font = chart.getStyler().getChartTitleFont();
        java.awt.image.BufferedImage scratch = new java.awt.image.BufferedImage(1, 1, java.awt.image.BufferedImage.TYPE_INT_RGB);
        java.awt.Graphics2D g = scratch.createGraphics();
        try {
            while (font.getSize2D() > 9 && g.getFontMetrics(font).stringWidth(title) > TITLE_WIDTH) {
                font = font.deriveFont(font.getSize2D() - 1);
            }
        } finally {
            g.dispose();
        }
        chart.getStyler().setChartTitleFont(font);
    }

    private static Path save(org.knowm.xchart.internal.chartpart.Chart<?, ?> chart, Path png) {
        try {
            Path parent = png.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            String name = png.toString();
            String base = name.endsWith(".png") ? name.substring(0, name.length() - 4) : name;
            BitmapEncoder.saveBitmap(chart, base, BitmapFormat.PNG);
            return Path.of(base + ".png");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write chart " + png, e);
        }
    }

    private static void headless() {
        if (System.getProperty("java.awt.headless") == null) {
            System.setProperty("java.awt.headless", "true");
        }
    }
}
