package io.gpdedup.bench.model;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.model.Published.Run;
import io.gpdedup.bench.report.Figures;
import io.gpdedup.bench.report.ResultTable;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.DoubleFunction;

/**
 * Where every value of the profile and of the cluster comes from (docs/appliance.md has the
 * algebra and the reasons):
 * <ul>
 * <li>the appliance's stream, pool, client, host and write parameters: tables A to C, in closed
 *     form ({@link #fromTablesAToC});</li>
 * <li>the database cluster's two per-table costs: table E rows 15 and 17, single-data-file
 *     backups to the hosts' own disks, in which neither the plugin nor the appliance takes part;</li>
 * <li>one appliance parameter, the service time of one synchronous request, which a file's create
 *     and close each hold the appliance's serial namespace for: table D row 1 (jobs mode, 5.5
 *     million files);</li>
 * <li>one restore-side parameter, the appliance's read (rehydration) capacity: table F row 18,
 *     the only published restore;</li>
 * <li>everything else is a stated assumption, not fitted on any row: a read stream's cap as a
 *     write stream's, the CSV's compression, an index that does not bind.</li>
 * </ul>
 * Every other row of D to F is a prediction.
 */
final class Calibration {
    /** The fitted profile and cluster, and a table of what was fitted on which row. */
    record Fitted(ApplianceProfile profile, Cluster cluster, ResultTable table) {
    }

    /** The one row of table D an appliance parameter is fitted on. */
    static final int APPLIANCE_ROW = 1;
    /** The table E rows the cluster's table finish and COPY start are fitted on. */
    static final int FINISH_ROW = 15;
    static final int START_ROW = 17;
    /** The one restore row (table F), which the appliance's read capacity is fitted on. */
    static final int RESTORE_ROW = 18;
    /** Every row of D to F something is fitted on; the others are predictions. */
    static final Set<Integer> FITTED_ROWS = Set.of(APPLIANCE_ROW, FINISH_ROW, START_ROW, RESTORE_ROW);

    /**
     * The appliance index's capacity, logical MB/s: an assumption that it does not bind. At this
     * rate each of 176 streams could look up twice what the plugin's own work lets it offer.
     */
    static final double LOOKUP_CAPACITY_MBPS = 200_000;

    private final List<Run> published;

    /** Fits against the published figures. */
    Calibration() {
        this(Published.RUNS);
    }

    /** Fits against the given runs in place of the published ones (a test changes one to see what moves). */
    Calibration(List<Run> published) {
        this.published = List.copyOf(published);
    }

    /**
     * The profile's stream, pool, client, host and write parameters solved from tables A to C in
     * closed form: A1 and A5 give the pool's cap and reserve; A20 and A30 the appliance's raw
     * capacity and per-stream overhead; C's totals at 4 and 8 hosts the active-stream limit; B1
     * against A1 the plugin's work per MB; B10, B20 and C's 2-host figures the host read cap (the
     * value with the smallest worst error); B's tail the pool's rebalance fraction. A to C publish no
     * read figure: a read stream's cap is taken to be a write stream's, and the read capacity starts
     * at the write capacity until {@link #fit} fits it on table F. The request and file timings stay
     * as in {@code base}.
     */
    static Fitted fromTablesAToC(ApplianceProfile base) {
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
        double hostRead = hostReadCapMBps();
        ApplianceProfile p = profile(base, cap, reserve, 0, clientMs, raw, overhead, maxActive, hostRead);
        double start = Math.min(p.pluginStreamCapMBps(10), hostRead / 10);
        double fair = Math.min(p.pluginStreamCapMBps(10), hostRead / 2);
        double rebalance = (Published.B_TWO_LEFT_MBPS / 2 - start) / (fair - start);
        p = profile(base, cap, reserve, rebalance, clientMs, raw, overhead, maxActive, hostRead);
        ResultTable t = new ResultTable("From tables A to C", "parameter", "value", "from");
        t.add("stream.cap-mbps", g(cap), "A: 1 and 5 threads");
        t.add("stream.pool-reserve-mbps", g(reserve), "A: 1 and 5 threads");
        t.add("write.raw-mbps", g(raw), "A: 20 and 30 threads");
        t.add("write.per-stream-overhead", g(overhead), "A: 20 and 30 threads");
        t.add("write.max-active-streams", maxActive, "C: totals at 4 and 8 hosts");
        t.add("stream.client-cost-ms-per-mb", g(clientMs), "B 1 thread against A 1 thread");
        t.add("host.read-cap-mbps", g(hostRead), "B 10, 20 threads; C 2 hosts");
        t.add("stream.pool-rebalance", g(rebalance), "B: 2 of 10 files left");
        t.add("read.stream-cap-mbps", g(cap), "assumed = stream.cap-mbps (A to C publish no read)");
        t.add("read.raw-mbps", g(raw), "= write.raw-mbps until fitted on F row " + RESTORE_ROW + " (below)");
        t.add("dedup.lookup-capacity-mbps", g(LOOKUP_CAPACITY_MBPS), "assumed not to bind");
        return new Fitted(p, null, t);
    }

    /**
     * One client host's disk read cap from B10, B20 and C's two 2-host figures: the value with the
     * smallest worst relative error over the four.
     */
    static double hostReadCapMBps() {
        double[] hostFigures = {Published.B_MBPS[1], Published.B_MBPS[2], Published.C_PER_HOST[0][0], Published.C_PER_HOST[0][1]};
        double hi = Arrays.stream(hostFigures).max().orElseThrow();
        double lo = Arrays.stream(hostFigures).min().orElseThrow();
        return 2 * hi * lo / (hi + lo);
    }

    /**
     * Fits the cluster's per-table costs on table E, the appliance's request time on table D row 1
     * and its read capacity on table F row 18, starting from {@code profile} (its A to C values as
     * they are) and {@code cluster} (its shape, CSV inflation and compression as they are).
     */
    public Fitted fit(ApplianceProfile profile, Cluster cluster, TableMix mix) {
        // Both costs act on both E rows (the finish sets the pace, the start whether a queue of 5
        // keeps up with it): fitted by turns until they settle. Neither row involves the appliance,
        // so the request time, fitted after them, cannot feed back into them.
        Cluster c = cluster;
        for (int round = 0; round < 30; round++) {
            Cluster before = c;
            c = c.withTableFinishSeconds(solve(FINISH_ROW, 0, 1, v -> new BackupModel(profile, before.withTableFinishSeconds(v), mix)));
            Cluster paced = c;
            c = c.withCopyStartSeconds(solve(START_ROW, 0, 5, v -> new BackupModel(profile, paced.withCopyStartSeconds(v), mix)));
            if (settled(before.tableFinishSeconds(), c.tableFinishSeconds()) && settled(before.copyStartSeconds(), c.copyStartSeconds())) {
                break;
            }
        }
        Cluster fitted = c;
        double request = solve(APPLIANCE_ROW, 0, 1, v -> new BackupModel(withRequestSeconds(profile, v), fitted, mix));
        // The restore waits for one request at the end of each table too, so its read capacity is
        // fitted last, with the request time settled; no backup row reads, so nothing feeds back.
        ApplianceProfile requests = withRequestSeconds(profile, request);
        double readRaw = solve(RESTORE_ROW, 1, 10 * profile.writeRawMBps(), v -> new BackupModel(ProfileEdits.readRaw(requests, v), fitted, mix));

        ResultTable t = new ResultTable("The cluster, and what is fitted on one row each (every other row of D to F is a prediction)",
                "parameter", "value", "from");
        t.add("cluster: segments per host", c.segmentsPerHost(), "assumed (--segments-per-host)");
        t.add("cluster: CSV inflation", g(c.csvInflation()), "published: the bytes sent are 30-40% larger");
        t.add("cluster: CSV compression", g(c.csvCompression()), "assumed: the vendor's 1.5-2.5 for a first full backup");
        t.add("cluster: table finish (ms)", g(c.tableFinishSeconds() * 1000),
                "fitted on E row " + FINISH_ROW + " (single-data-file, queue 20, local disks)");
        t.add("cluster: COPY start (ms)", g(c.copyStartSeconds() * 1000),
                "fitted on E row " + START_ROW + " (single-data-file, queue 5, local disks)");
        t.add("stream.request-latency-ms = files.namespace-op-ms", g(request * 1000),
                "fitted on D row " + APPLIANCE_ROW + " (jobs, 5.5 million files)");
        t.add("read.raw-mbps (the appliance's rehydration capacity)", g(readRaw),
                "fitted on F row " + RESTORE_ROW + " (gprestore, the only published restore)");
        return new Fitted(ProfileEdits.readRaw(requests, readRaw), c, t);
    }

    /**
     * The profile with one synchronous request taking {@code seconds} of the appliance's service:
     * a stream's wait at the end of a table, and a file create's or close's turn on the namespace.
     * A create or close waits for nothing else (its round trip is that turn), so the files' own
     * latencies are zero rather than a second, separate round trip.
     */
    static ApplianceProfile withRequestSeconds(ApplianceProfile p, double seconds) {
        Duration d = Duration.ofNanos(Math.round(seconds * 1e9));
        return ProfileEdits.timings(p, d, Duration.ZERO, Duration.ZERO, d);
    }

    private static ApplianceProfile profile(ApplianceProfile base, double cap, double reserve, double rebalance, double clientMs,
            double raw, double overhead, int maxActive, double hostRead) {
        return new ApplianceProfile(base.name(), base.scale(), cap, reserve, rebalance, clientMs, base.requestLatency(), raw,
                overhead, maxActive, hostRead, base.fileOpenLatency(), base.fileCloseLatency(), base.namespaceOpCost(),
                LOOKUP_CAPACITY_MBPS, cap, raw);
    }

    private static boolean settled(double before, double after) {
        return Math.abs(after - before) <= 1e-5 * Math.abs(after);
    }

    static String g(double v) {
        return Figures.significant(v, 4);
    }

    private Run run(int row) {
        return published.stream().filter(r -> r.row() == row).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no published run " + row));
    }

    /** The value in [lo, hi] where the model's MB/s for {@code row} meets the published one (bisection). */
    private double solve(int row, double lo, double hi, DoubleFunction<BackupModel> at) {
        Run run = run(row);
        double fLo = at.apply(lo).run(run.scenario()).mbps() - run.mbps();
        for (int i = 0; i < 40; i++) {
            double mid = (lo + hi) / 2;
            double f = at.apply(mid).run(run.scenario()).mbps() - run.mbps();
            if (Math.signum(f) == Math.signum(fLo)) {
                lo = mid;
                fLo = f;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }
}
