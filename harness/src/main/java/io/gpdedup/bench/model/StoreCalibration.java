package io.gpdedup.bench.model;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.report.Figures;
import io.gpdedup.bench.report.ResultTable;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.IntToDoubleFunction;
import java.util.stream.Collectors;

/**
 * An appliance profile for a real gpdedup-store from what {@code gpdedup-bench calibrate --host}
 * measured through the dedup plugin's pipeline, so that the model (and its what-ifs) can predict
 * that store instead of the seed's appliance. The profile's mechanisms stay the seed's; their
 * values come from the measurements (docs/appliance.md has the mapping):
 * <ul>
 * <li>unique writes, repeats and reads at each thread count give the plugin's work per MB, a
 *     stream's cap, and the write and read capacities with their per-stream overhead (fitted over
 *     the thread counts);</li>
 * <li>pings give a request's round trip; many small objects written at once and one after the
 *     other give the per-file cost jobs mode pays twice per table per segment;</li>
 * <li>the client library has no shared pool (each stream is its own connection), so no pool
 *     reserve and full rebalance; the client hosts' disks are not the store's and stay the seed's.</li>
 * </ul>
 */
public final class StoreCalibration {
    /** One thread count: unique writes, repeats (every chunk stored already) and reads, MB/s of all streams together. */
    public record Measured(int threads, double writeMBps, double repeatMBps, double readMBps) {
    }

    /** Small objects (one lease and commit each): ms per object on one thread; objects per second on {@code threads}. */
    public record Files(double millisPerFileAlone, int threads, double filesPerSecond) {
    }

    /** The profile, where each value came from, and the measurements beside what the profile gives back. */
    public record Result(ApplianceProfile profile, ResultTable sources, ResultTable fit) {
    }

    /** Past this share of the streams' own total the aggregate is taken to bind. */
    private static final double BINDS = 0.9;

    private StoreCalibration() {
    }

    public static Result solve(String name, List<Measured> measured, double pingMillis, Files files) {
        List<Measured> rows = measured.stream().sorted(Comparator.comparingInt(Measured::threads)).toList();
        if (rows.isEmpty() || rows.get(0).threads() != 1) {
            throw new IllegalArgumentException("calibrate needs 1 among the thread counts: one stream alone gives the per-stream figures");
        }
        Measured one = rows.get(0);
        double clientMs = 1000 / one.repeatMBps();
        double wire = 1 / one.writeMBps() - clientMs / 1000;
        boolean wireBinds = wire > 1 / (100 * one.writeMBps());
        double streamCap = wireBinds ? 1 / wire : 100 * one.writeMBps();
        int[] threads = rows.stream().mapToInt(Measured::threads).toArray();
        Capacity write = fit(threads, i -> rows.get(i).writeMBps(), one.writeMBps(), null);
        Capacity read = fit(threads, i -> rows.get(i).readMBps(), one.readMBps(), write);
        // Repeats cost the client its work per MB and the store a lookup: where they fall short of
        // the streams' own total, the store's lookups bind, at the most it ever gave.
        boolean lookupBinds = rows.stream().anyMatch(m -> m.repeatMBps() < BINDS * m.threads() * one.repeatMBps());
        double lookup = lookupBinds ? rows.stream().mapToDouble(Measured::repeatMBps).max().orElseThrow() : Calibration.LOOKUP_CAPACITY_MBPS;
        double namespaceMs = 1000 / (2 * files.filesPerSecond());
        double fileLatencyMs = Math.max(0, files.millisPerFileAlone() - 2 * namespaceMs - pingMillis) / 2;
        ApplianceProfile p = new ApplianceProfile(name, 1.0, streamCap, 0, 1, clientMs, millis(pingMillis), write.raw, write.overhead,
                write.maxActive, Calibration.hostReadCapMBps(), millis(fileLatencyMs), millis(fileLatencyMs), millis(namespaceMs), lookup,
                one.readMBps(), read.raw);

        int top = threads[threads.length - 1];
        ResultTable t = new ResultTable("The profile, from the measurements", "parameter", "value", "from");
        t.add("stream.client-cost-ms-per-mb", Calibration.g(clientMs), "1 thread, repeat: the plugin's work per MB when nothing is sent");
        t.add("stream.cap-mbps", Calibration.g(streamCap), wireBinds ? "1 thread, write: what is left of a stream's time after the plugin's work"
                : "1 thread: the plugin's own work is a stream's whole cost (set to 100x its rate)");
        t.add("stream.pool-reserve-mbps, pool-rebalance", "0, 1", "gpdedup's client: one connection per stream, no shared pool");
        t.add("stream.request-latency-ms", Calibration.g(pingMillis), "median ping round trip");
        t.add("write.raw-mbps, per-stream-overhead, max-active-streams", Calibration.g(write.raw) + ", " + Calibration.g(write.overhead) + ", " + write.maxActive,
                "writes at " + threadList(threads) + " threads (least squares on log MB/s)");
        t.add("read.stream-cap-mbps", Calibration.g(one.readMBps()), "1 thread, read (the restore pipeline, SHA-256 checked)");
        t.add("read.raw-mbps", Calibration.g(read.raw), "reads at " + threadList(threads) + " threads, the writes' overhead");
        t.add("dedup.lookup-capacity-mbps", Calibration.g(lookup), lookupBinds ? "repeats fell short of the streams' own total: the most they gave"
                : "repeats grew with the threads up to " + top + ": taken not to bind, as the reference appliance's");
        t.add("files.namespace-op-ms", Calibration.g(namespaceMs), String.format(Locale.ROOT, "%.0f small objects/s on %d threads, a create and a close each",
                files.filesPerSecond(), files.threads()));
        t.add("files.open-latency-ms, close-latency-ms", Calibration.g(fileLatencyMs), String.format(Locale.ROOT,
                "%s ms per small object on one thread, less its namespace turns and a round trip, halved", Figures.fixed(files.millisPerFileAlone(), 2)));
        t.add("host.read-cap-mbps", Calibration.g(p.hostReadCapMBps()), "the reference measurement's client hosts: not the store's to measure");

        ResultTable fit = new ResultTable("Measured against what the profile gives back (MB/s)", "threads", "write", "profile write",
                "repeat", "profile repeat", "read", "profile read");
        for (Measured m : rows) {
            int n = m.threads();
            fit.add(n, m.writeMBps(), write.total(n), m.repeatMBps(), Math.min(n * one.repeatMBps(), lookup), m.readMBps(), read.total(n));
        }
        return new Result(p, t, fit);
    }

    /** An aggregate capacity {@code raw / (1 + overhead * min(n, maxActive))} under {@code n} streams of {@code perStream} each. */
    private record Capacity(double perStream, double raw, double overhead, int maxActive) {
        double total(int n) {
            return Math.min(n * perStream, raw / (1 + overhead * Math.min(n, maxActive)));
        }
    }

    /**
     * The capacity that best gives the measured totals (least squares on their logarithms): the
     * overhead and active-stream limit searched (or taken from {@code like}), the raw capacity
     * then the smallest best one, so that a capacity the measurements never reached is not
     * claimed beyond them.
     */
    private static Capacity fit(int[] threads, IntToDoubleFunction measured, double perStream, Capacity like) {
        double[] overheads = new double[162];
        for (int i = 1; i < overheads.length; i++) {
            overheads[i] = 1e-4 * Math.pow(10, (i - 1) / 32.0);
        }
        Capacity best = null;
        double bestError = Double.MAX_VALUE;
        for (int mi = threads.length - 1; mi >= 0; mi--) {
            int maxActive = like != null ? like.maxActive : threads[mi];
            for (double overhead : like != null ? new double[] {like.overhead} : overheads) {
                double lo = Double.MAX_VALUE;
                double hi = 0;
                for (int i = 0; i < threads.length; i++) {
                    double needed = measured.applyAsDouble(i) * (1 + overhead * Math.min(threads[i], maxActive));
                    lo = Math.min(lo, needed);
                    hi = Math.max(hi, needed);
                }
                for (int step = 0; step <= 400; step++) {
                    double raw = lo / 2 * Math.pow(4 * hi / lo, step / 400.0);
                    Capacity c = new Capacity(perStream, raw, overhead, maxActive);
                    double e = 0;
                    for (int i = 0; i < threads.length; i++) {
                        double d = Math.log(c.total(threads[i]) / measured.applyAsDouble(i));
                        e += d * d;
                    }
                    if (e < bestError - 1e-12) {
                        bestError = e;
                        best = c;
                    }
                }
            }
            if (like != null) {
                break;
            }
        }
        return best;
    }

    private static Duration millis(double ms) {
        return Duration.ofNanos(Math.round(ms * 1e6));
    }

    private static String threadList(int[] threads) {
        return Arrays.stream(threads).mapToObj(String::valueOf).collect(Collectors.joining(", "));
    }
}
