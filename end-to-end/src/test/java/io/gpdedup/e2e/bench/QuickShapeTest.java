package io.gpdedup.e2e.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.fixture.Dist;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code gpdedup-bench calibrate --quick}, live: the channel test (table A) and the isolated plugin
 * test on 4 and 8 hosts (table C) against a real store throttled by the seed's profile, then the
 * published shapes on the CSV files it wrote: 20 threads beat 10 and 1, 30 threads fall below 20,
 * 8 hosts share the same total as 4 (and share it evenly).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class QuickShapeTest {
    /** The profile the repository calibrates: the suite runs from end-to-end/, the profile is at the root. */
    private static final Path PROFILE = Path.of("..", "profiles", "seed003.yaml");

    private Path out;
    private String log;

    @BeforeAll
    void runQuickCalibration(@TempDir Path dir) throws IOException, InterruptedException {
        out = dir.resolve("out");
        Path stdout = dir.resolve("stdout.txt");
        Path stderr = dir.resolve("stderr.txt");
        ProcessBuilder pb = new ProcessBuilder(Dist.executable("gpdedup-bench").toString(), "calibrate", "--quick", "--quiet",
                "--profile", PROFILE.toAbsolutePath().toString(), "--work", dir.resolve("work").toString(), "--out", out.toString());
        pb.environment().put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        pb.redirectOutput(stdout.toFile());
        pb.redirectError(stderr.toFile());
        Process p = pb.start();
        if (!p.waitFor(4, TimeUnit.MINUTES)) {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        log = Files.readString(stdout) + "\n--- stderr ---\n" + tail(Files.readString(stderr), 4000);
        assertTrue(Files.exists(out.resolve("calibrate-a.csv")) && Files.exists(out.resolve("calibrate-bc.csv")),
                () -> "calibrate --quick wrote no results:\n" + log);
    }

    @Test
    void twentyThreadsBeatTenAndOne() throws IOException {
        Map<String, Double> a = column(out.resolve("calibrate-a.csv"), "threads", "ours MB/s");
        assertTrue(a.get("20") > a.get("10"), () -> "20 threads must beat 10: " + a + "\n" + log);
        assertTrue(a.get("20") > a.get("1"), () -> "20 threads must beat 1: " + a + "\n" + log);
    }

    @Test
    void thirtyThreadsFallBelowTwenty() throws IOException {
        Map<String, Double> a = column(out.resolve("calibrate-a.csv"), "threads", "ours MB/s");
        assertTrue(a.get("30") < a.get("20"), () -> "30 threads must fall below 20: " + a + "\n" + log);
    }

    @Test
    void eightHostsShareTheSameTotalAsFourEvenly() throws IOException {
        List<Map<String, String>> rows = rows(out.resolve("calibrate-bc.csv"));
        double four = total(rows, "4");
        double eight = total(rows, "8");
        assertEquals(four, eight, four * 0.15, () -> "8 hosts must share what 4 share (within 15%)\n" + log);
        for (String hosts : List.of("4", "8")) {
            double min = Double.MAX_VALUE;
            double max = 0;
            for (Map<String, String> r : rows) {
                if (r.get("hosts").equals(hosts) && r.get("host").startsWith("host")) {
                    double v = Double.parseDouble(r.get("ours MB/s"));
                    min = Math.min(min, v);
                    max = Math.max(max, v);
                }
            }
            double lo = min;
            double hi = max;
            // Each host is a process that needs CPU too: on a 2-core machine with a build running
            // beside the test, a fair throttle still showed one host at 0.71 of another. An unfair
            // one (first come, first served) leaves the last hosts far below that.
            assertTrue(lo >= 0.6 * hi, () -> hosts + " hosts must share evenly: slowest " + lo + ", fastest " + hi + "\n" + log);
        }
    }

    private static double total(List<Map<String, String>> rows, String hosts) {
        for (Map<String, String> r : rows) {
            if (r.get("hosts").equals(hosts) && r.get("host").equals("total")) {
                return Double.parseDouble(r.get("ours MB/s"));
            }
        }
        throw new AssertionError("no total row for " + hosts + " hosts in " + rows);
    }

    private static Map<String, Double> column(Path csv, String key, String value) throws IOException {
        Map<String, Double> out = new HashMap<>();
        for (Map<String, String> r : rows(csv)) {
            out.put(r.get(key), Double.parseDouble(r.get(value)));
        }
        return out;
    }

    /** The CSV's rows as header -> cell (the harness writes no quoted cells in these files). */
    private static List<Map<String, String>> rows(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv, StandardCharsets.UTF_8);
        String[] header = lines.get(0).split(",", -1);
        List<Map<String, String>> rows = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] cells = line.split(",", -1);
            Map<String, String> row = new HashMap<>();
            for (int i = 0; i < header.length; i++) {
                row.put(header[i], i < cells.length ? cells[i] : "");
            }
            rows.add(row);
        }
        return rows;
    }

    private static String tail(String s, int n) {
        return s.length() <= n ? s : s.substring(s.length() - n);
    }
}
