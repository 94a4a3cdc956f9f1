package io.gpdedup.bench.compare;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TargetAndReportTest {
    @ParameterizedTest
    @CsvSource({
        "AT_LEAST, 2.0, 1.0, 2.0, true",
        "AT_LEAST, 1.99, 1.0, 2.0, false",
        "AT_MOST, 0.3, 1.0, 0.3, true",
        "AT_MOST, 0.31, 1.0, 0.3, false",
        "BELOW, 0.0099, 1.0, 0.01, true",
        "BELOW, 0.01, 1.0, 0.01, false",
    })
    void aTargetIsMetOnlyOnTheRightSideOfItsBound(Target.Rule rule, double measured, double reference, double bound, boolean met) {
        Target t = Target.of("t", measured, reference, rule, bound, "");
        assertEquals(met, t.met());
        assertTrue(t.verdict().startsWith(met ? "met" : "MISSED"), t.verdict());
    }

    @Test
    void aTargetWithoutItsReferenceIsNotApplicable() {
        Target t = Target.of("t", 100, Double.NaN, Target.Rule.AT_LEAST, 2, "");
        assertFalse(t.known());
        assertFalse(t.met());
        assertEquals("n/a", t.verdict());
        assertEquals("n/a", t.measured());
    }

    @Test
    void printsSharesAsPercentages() {
        Target t = Target.share("sent", 500_000, 1_000_000_000, Target.Rule.BELOW, 0.01, "");
        assertEquals("0.0500%", t.measured());
        assertEquals("< 1.00%", t.required());
        assertEquals("met (20.00x margin)", t.verdict());
    }

    @Test
    void mediansOfOddAndEvenCounts() {
        assertEquals(2.0, Report.median(new double[] {3, 1, 2}));
        assertEquals(2.5, Report.median(new double[] {4, 1, 3, 2}));
        assertTrue(Double.isNaN(Report.median(new double[0])));
        assertEquals("2.0 (1.0-3.0)", Report.cell(new double[] {3, 1, 2}, "%.1f"));
        assertEquals("7.00", Report.cell(new double[] {7}, "%.2f"));
        assertEquals("7.00", Report.cell(new double[] {7, 7.001}, "%.2f"), "a figure that does not vary prints once");
        assertEquals("-", Report.cell(new double[0], "%.2f"));
    }

    @Test
    void targetsAreRatiosOfMedians() {
        StreamFile base = new StreamFile("base", "base table", Path.of("base.copy"), 1L << 30, "00", 1L << 30);
        List<StreamFile> files = List.of(base,
                new StreamFile("clustered", "c", Path.of("c"), 1L << 30, "01", 50_000_000),
                new StreamFile("inserted", "i", Path.of("i"), 1L << 30, "02", 10_000_000),
                new StreamFile("scattered", "s", Path.of("s"), 1L << 30, "03", 1_000_000));
        List<Observation> obs = new ArrayList<>();
        // gpdedup: 2 s first backup (512 MiB/s), 1 s repeat, 5 MB after clustered, 0.5 MB sent on the repeat.
        add(obs, "gpdedup", Step.FIRST, 2.0, 350_000_000, -1);
        add(obs, "gpdedup", Step.REPEAT, 1.0, 10_000, 500_000);
        add(obs, "gpdedup", Step.CLUSTERED, 1.0, 5_000_000, -1);
        add(obs, "gpdedup", Step.INSERTED, 1.0, 4_000_000, -1);
        add(obs, "gpdedup", Step.RESTORE, 2.0, 0, -1);
        add(obs, "restic", Step.FIRST, 8.0, 340_000_000, -1);
        add(obs, "restic", Step.CLUSTERED, 2.0, 20_000_000, -1);
        add(obs, "restic", Step.INSERTED, 2.0, 10_000_000, -1);
        add(obs, "restic", Step.RESTORE, 4.0, 0, -1);
        add(obs, "borg", Step.FIRST, 5.0, 500_000_000, -1);
        add(obs, "borg", Step.REPEAT, 1.5, 0, -1);
        add(obs, "borg", Step.RESTORE, 2.5, 0, -1);
        Report r = new Report(new StreamSet(files, 3.0), List.of("gpdedup", "restic", "borg"), obs);
        List<Target> t = r.targets();
        assertEquals(10, t.size());
        assertEquals(2.5, t.get(0).ratio(), 1e-9, "5 s borg / 2 s gpdedup");
        assertTrue(t.get(0).met());
        assertEquals(1.5, t.get(1).ratio(), 1e-9);
        assertEquals(500_000.0 / (1L << 30), t.get(2).ratio(), 1e-12);
        assertEquals(0.25, t.get(3).ratio(), 1e-9);
        assertTrue(t.get(3).met());
        assertEquals(0.4, t.get(4).ratio(), 1e-9);
        assertFalse(t.get(4).met());
        assertEquals(2.0, t.get(5).ratio(), 1e-9);
        assertEquals(1.25, t.get(6).ratio(), 1e-9);
        assertFalse(t.get(6).met());
        String table = r.targetTable();
        assertTrue(table.contains("| restore vs borg extract | >= 1.50x | 1.25x |"), table);
        assertTrue(table.contains("MISSED (needs 1.20x)"), table);
        assertTrue(table.contains("MISSED (1.33x over)"), table);
    }

    @Test
    void growthTargetsTakeWhatTheStoreHoldsOnceItSettled() {
        List<StreamFile> files = List.of(new StreamFile("base", "base table", Path.of("b"), 1L << 30, "00", 1L << 30),
                new StreamFile("clustered", "c", Path.of("c"), 1L << 30, "01", 50_000_000),
                new StreamFile("inserted", "i", Path.of("i"), 1L << 30, "02", 10_000_000),
                new StreamFile("scattered", "s", Path.of("s"), 1L << 30, "03", 1_000_000));
        List<Observation> obs = new ArrayList<>();
        Measured m = new Measured(1_000_000_000L, 1, 0, null, Path.of("log"));
        // As written 4 MB and 3.5 MB; once recompressed 3 MB and 2.5 MB.
        obs.add(new Observation(0, "gpdedup", Step.CLUSTERED, 1L << 30, new StepResult(m, -1, -1, -1), 4_000_000, -1,
                new Observation.Settled(3_000_000, 1, 1), null));
        obs.add(new Observation(0, "gpdedup", Step.INSERTED, 1L << 30, new StepResult(m, -1, -1, -1), 3_500_000, -1,
                new Observation.Settled(2_500_000, 1, 1), null));
        obs.add(new Observation(0, "gpdedup", Step.SCATTERED, 1L << 30, new StepResult(m, -1, -1, -1), 9_000_000, -1,
                new Observation.Settled(8_000_000, 1, 1), null));
        add(obs, "restic", Step.CLUSTERED, 2.0, 10_000_000, -1);
        add(obs, "restic", Step.INSERTED, 2.0, 10_000_000, -1);
        add(obs, "restic", Step.SCATTERED, 2.0, 20_000_000, -1);
        Report r = new Report(new StreamSet(files, 3.0), List.of("gpdedup", "restic"), obs);
        List<Target> growth = r.targets().stream().filter(t -> t.what().startsWith("added after")).toList();
        assertEquals(2, growth.size());
        assertEquals(0.3, growth.get(0).ratio(), 1e-9, "3 MB held against restic's 10, not the 4 MB written");
        assertTrue(growth.get(0).met());
        assertEquals(0.25, growth.get(1).ratio(), 1e-9);
        String figures = r.figures();
        assertTrue(figures.contains("| added after i, MB | 3.50 | 10.00 |"), figures);
        assertTrue(figures.contains("| added after i once the store recompressed, MB | 2.50 | 10.00 |"), figures);
        assertTrue(r.scatteredNote().contains("gpdedup added 8.00 MB (once the store recompressed), restic 20.00 MB"), r.scatteredNote());
    }

    private static void add(List<Observation> obs, String tool, Step step, double seconds, long growth, long wire) {
        Measured m = new Measured((long) (seconds * 1e9), 1, 0, null, Path.of("log"));
        obs.add(new Observation(0, tool, step, 1L << 30, new StepResult(m, -1, wire, -1), growth, -1, null, null));
    }
}
