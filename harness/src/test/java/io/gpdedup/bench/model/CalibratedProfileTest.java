package io.gpdedup.bench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.bench.BenchRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A profile of an admin's own store: the model names it by host, unit and date, and warns (one
 * line on stderr, the run goes on) when its calibration was too brief to trust.
 */
class CalibratedProfileTest {
    @TempDir
    Path dir;

    /** The reference profile's values with a calibration's {@code measured} section. */
    private Path profile(String name, Calibrated measured) throws IOException {
        String text = Files.readString(ModelReproductionTest.SEED) + measured.toYaml();
        return Files.writeString(dir.resolve(name + ".yaml"), text);
    }

    private BenchRun model(Path profile) {
        return BenchRun.of("model", "--quiet", "--profile", profile.toString(), "--hosts", "2", "--tables", "200", "--data", "1GiB",
                "--out", dir.resolve("out").toString());
    }

    @Test
    void aLongCalibrationIsNamedAndNotWarnedAbout() throws IOException {
        Path p = profile("long", new Calibrated("db-store-1", "main", LocalDate.of(2026, 1, 31), 5, 12.5));
        BenchRun r = model(p);
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("profile: your store, calibrated 2026-01-31 on db-store-1 (unit main), " + p), r.toString());
        assertEquals("", r.err(), r.toString());
    }

    @Test
    void aShortCalibrationIsWarnedAboutOnceAndTheRunGoesOn() throws IOException {
        for (Calibrated brief : new Calibrated[] {new Calibrated("db-store-1", "main", LocalDate.of(2026, 1, 31), 5, 0.4),
            new Calibrated("db-store-1", "main", LocalDate.of(2026, 1, 31), 2, 12.5)}) {
            BenchRun r = model(profile("short", brief));
            assertEquals(0, r.exit(), r.toString());
            assertEquals(1, r.err().lines().count(), r.toString());
            assertTrue(r.err().startsWith("warning: this calibration is too brief to trust (" + brief.threadCounts() + " thread counts, "
                    + "shortest transfer " + String.format(java.util.Locale.ROOT, "%.2f", brief.shortestPassSeconds()) + " s; a trusted one "
                    + "has at least 3 thread counts and every transfer at least 2 s)"), r.toString());
            assertTrue(r.out().contains("What-if: minutes"), "the prediction still runs: " + r);
        }
    }

    @Test
    void theThresholdsAreTheEdges() {
        LocalDate d = LocalDate.of(2026, 1, 31);
        assertTrue(new Calibrated("h", "u", d, Calibrated.MIN_THREAD_COUNTS, Calibrated.MIN_PASS_SECONDS).tooBrief().isEmpty());
        assertFalse(new Calibrated("h", "u", d, Calibrated.MIN_THREAD_COUNTS - 1, Calibrated.MIN_PASS_SECONDS).tooBrief().isEmpty());
        assertFalse(new Calibrated("h", "u", d, Calibrated.MIN_THREAD_COUNTS, Calibrated.MIN_PASS_SECONDS * 0.99).tooBrief().isEmpty());
    }

    @Test
    void aBadMeasuredSectionIsOneLineAndExit2() throws IOException {
        Path p = Files.writeString(dir.resolve("bad.yaml"), Files.readString(ModelReproductionTest.SEED)
                + "measured:\n  host: h\n  unit: u\n  date: yesterday\n  thread-counts: 5\n  shortest-pass-seconds: 3\n");
        BenchRun r = model(p);
        assertEquals(2, r.exit(), r.toString());
        assertEquals("model: appliance profile " + p + ": measured.date must be a date like 2026-01-31", r.err().strip());
    }

    @Test
    void withoutAProfileTheModelUsesTheBuiltInReferenceAppliance() {
        BenchRun r = BenchRun.of("model", "--quiet", "--hosts", "2", "--tables", "200", "--data", "1GiB", "--out", dir.resolve("out").toString());
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.out().contains("profile: built-in reference appliance;"), r.toString());
        assertEquals(KitProfile.choose(ModelReproductionTest.SEED).profile(), KitProfile.choose(null).profile(),
                "the built-in profile is the repository's reference appliance");
    }
}
