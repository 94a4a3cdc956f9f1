package io.gpdedup.bench.model;

import io.gpdedup.bench.model.Published.Run;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.store.appliance.ApplianceProfile;
import java.time.Duration;
import java.util.function.DoubleFunction;

/**
 * Fits the parameters tables A to C cannot determine, each on one published row of D to F, so the
 * other rows are predictions: the cluster's per-table costs on E (row 9: jobs, no plugin; row 15:
 * single-data-file, queue 20), the CSV's compression and the appliance's request latency on D
 * (row 5: large tables; row 7: small tables), the namespace on D row 1 (jobs), the read capacity on
 * F row 18. Pairs that act on both of their rows are fitted by turns until they settle.
 */
public final class Calibration {
    /** The fitted profile and cluster, and a table of what was fitted on which row. */
    public record Fitted(ApplianceProfile profile, Cluster cluster, ResultTable table) {
    }

    /** The rows of D to F a parameter is fitted on; the others are predictions. */
    public static final java.util.Set<Integer> FITTED_ROWS = java.util.Set.of(1, 5, 7, 9, 15, 18);

    private ApplianceProfile profile;
    private Cluster cluster;
    private final TableMix mix;

    public Calibration(ApplianceProfile profile, Cluster cluster, TableMix mix) {
        this.profile = profile;
        this.cluster = cluster;
        this.mix = mix;
    }

    /**
     * The profile's stream, pool, client, host and write parameters solved from tables A to C in
     * closed form (docs/appliance.md shows the algebra): A1 and A5 give the pool's cap and
     * reserve; A20 and A30 the appliance's raw capacity and per-stream overhead; C's totals at 4
     * and 8 hosts the active-stream limit; B1 against A1 the plugin's work per MB; B10, B20 and
     * C's 2-host figures the host read cap (the value with the smallest worst error); B's tail
     * the pool's rebalance fraction. The others stay as in {@code base}.
     */
    public static Fitted fromTablesAToC(ApplianceProfile base) {
        double a1 = Published.A_MBPS[0];
        double a5 = Published.A_MBPS[1];
        double a20 = Published.A_MBPS[3];
        double a30 = Published.A_MBPS[4];
        double cap = (a5 - a1) / 4;
        double reserve = cap - a1;
        double k = a20 / a30;
        double overhead = (k - 1) / (30 - 20 * k);
        double raw = a20 * (1 + 20 * overhead);
        double plateau = (Published.C_TOTAL[1] + Published.C_TOTAL[2]) / 2;
        int maxActive = (int) Math.round((raw / plateau - 1) / overhead);
        double clientMs = (1 / Published.B_MBPS[0] - 1 / a1) * 1000;
        double[] hostFigures = {Published.B_MBPS[1], Published.B_MBPS[2], Published.C_PER_HOST[0][0], Published.C_PER_HOST[0][1]};
        double hi = java.util.Arrays.stream(hostFigures).max().orElseThrow();
        double lo = java.util.Arrays.stream(hostFigures).min().orElseThrow();
        double hostRead = 2 * hi * lo / (hi + lo);
        ApplianceProfile p = new ApplianceProfile(base.name(), base.scale(), cap, reserve, 0, clientMs, base.requestLatency(), raw,
                overhead, maxActive, hostRead, base.fileOpenLatency(), base.fileCloseLatency(), base.namespaceOpCost(),
                base.lookupCapacityMBps(), base.streamReadCapMBps(), base.readRawMBps());
        double start = Math.min(p.pluginStreamCapMBps(10), hostRead / 10);
        double fair = Math.min(p.pluginStreamCapMBps(10), hostRead / 2);
        double rebalance = (Published.B_TWO_LEFT_MBPS / 2 - start) / (fair - start);
        p = new ApplianceProfile(base.name(), base.scale(), cap, reserve, rebalance, clientMs, base.requestLatency(), raw,
                overhead, maxActive, hostRead, base.fileOpenLatency(), base.fileCloseLatency(), base.namespaceOpCost(),
                base.lookupCapacityMBps(), base.streamReadCapMBps(), base.readRawMBps());
        ResultTable t = new ResultTable("Solved from tables A to C", "parameter", "value", "from");
        t.add("stream.cap-mbps", g(cap), "A: 1 and 5 threads");
        t.add("stream.pool-reserve-mbps", g(reserve), "A: 1 and 5 threads");
        t.add("write.raw-mbps", g(raw), "A: 20 and 30 threads");
        t.add("write.per-stream-overhead", g(overhead), "A: 20 and 30 threads");
        t.add("write.max-active-streams", maxActive, "C: totals at 4 and 8 hosts");
        t.add("stream.client-cost-ms-per-mb", g(clientMs), "B 1 thread against A 1 thread");
        t.add("host.read-cap-mbps", g(hostRead), "B 10, 20 threads; C 2 hosts");
        t.add("stream.pool-rebalance", g(rebalance), "B: 2 of 10 files left");
        return new Fitted(p, null, t);
    }

    public Fitted fit() {
        for (int round = 0; round < 30; round++) {
            Cluster before = cluster;
            cluster = cluster.withCopyStartSeconds(solve(9, 0, 5, v -> model(profile, cluster.withCopyStartSeconds(v))));
            cluster = cluster.withTableFinishSeconds(solve(15, 0, 1, v -> model(profile, cluster.withTableFinishSeconds(v))));
            if (settled(before.copyStartSeconds(), cluster.copyStartSeconds()) && settled(before.tableFinishSeconds(), cluster.tableFinishSeconds())) {
                break;
            }
        }
        for (int round = 0; round < 30; round++) {
            Cluster before = cluster;
            Duration latency = profile.requestLatency();
            cluster = cluster.withCsvCompression(solve(5, 1, 20, v -> model(profile, cluster.withCsvCompression(v))));
            profile = with(profile, solve(7, 0, 1, v -> model(with(profile, v, Field.REQUEST_LATENCY), cluster)), Field.REQUEST_LATENCY);
            if (settled(before.csvCompression(), cluster.csvCompression())
                    && settled(latency.toNanos(), profile.requestLatency().toNanos())) {
                break;
            }
        }
        profile = with(profile, solve(1, 0, 1, v -> model(with(profile, v, Field.NAMESPACE), cluster)), Field.NAMESPACE);
        profile = with(profile, solve(18, 1, 1e6, v -> model(with(profile, v, Field.READ_RAW), cluster)), Field.READ_RAW);

        ResultTable t = new ResultTable("Fitted on one row each (everything else is calibrated on tables A to C)",
                "parameter", "value", "fitted on");
        t.add("cluster: copy start (ms)", g(cluster.copyStartSeconds() * 1000), "E row 9");
        t.add("cluster: table finish (ms)", g(cluster.tableFinishSeconds() * 1000), "E row 15");
        t.add("cluster: csv compression", g(cluster.csvCompression()), "D row 5");
        t.add("profile: stream.request-latency-ms", g(profile.requestLatency().toNanos() / 1e6), "D row 7");
        t.add("profile: files.namespace-op-ms", g(profile.namespaceOpCost().toNanos() / 1e6), "D row 1");
        t.add("profile: read.raw-mbps", g(profile.readRawMBps()), "F row 18");
        return new Fitted(profile, cluster, t);
    }

    private static boolean settled(double before, double after) {
        return Math.abs(after - before) <= 1e-5 * Math.abs(after);
    }

    private static String g(double v) {
        return Math.abs(v) >= 1000 ? String.format(java.util.Locale.ROOT, "%.0f", v) : String.format(java.util.Locale.ROOT, "%.4g", v);
    }

    /** A function from a model's state to (our MB/s for the row). */
    private interface Model {
        BackupModel model();
    }

    private Model model(ApplianceProfile p, Cluster c) {
        return () -> new BackupModel(p, c, mix);
    }

    /** The value in [lo, hi] where our MB/s for {@code row} meets the published one (bisection). */
    private static double solve(int row, double lo, double hi, DoubleFunction<Model> at) {
        Run run = Published.run(row);
        double fLo = at.apply(lo).model().run(run).mbps() - run.mbps();
        for (int i = 0; i < 40; i++) {
            double mid = (lo + hi) / 2;
            double f = at.apply(mid).model().run(run).mbps() - run.mbps();
            if (Math.signum(f) == Math.signum(fLo)) {
                lo = mid;
                fLo = f;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }

    private enum Field { REQUEST_LATENCY, NAMESPACE, READ_RAW }

    private static ApplianceProfile with(ApplianceProfile p, double v, Field field) {
        Duration seconds = Duration.ofNanos(Math.round(v * 1e9));
        return new ApplianceProfile(p.name(), p.scale(), p.streamCapMBps(), p.poolReserveMBps(), p.poolRebalance(),
                p.clientCostMsPerMB(), field == Field.REQUEST_LATENCY ? seconds : p.requestLatency(), p.writeRawMBps(),
                p.perStreamOverhead(), p.maxActiveStreams(), p.hostReadCapMBps(), p.fileOpenLatency(), p.fileCloseLatency(),
                field == Field.NAMESPACE ? seconds : p.namespaceOpCost(),
                p.lookupCapacityMBps(), p.streamReadCapMBps(),
                field == Field.READ_RAW ? v : p.readRawMBps());
    }
}
