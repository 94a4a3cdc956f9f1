package io.gpdedup.bench.model;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.model.Published.Mode;
import io.gpdedup.bench.model.Published.Scenario;
import io.gpdedup.bench.model.Published.Tables;
import io.gpdedup.bench.model.Published.Target;
import io.gpdedup.bench.report.ResultTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A site's own cluster, database and store through the model that reproduces the seed's tables:
 * a backup in jobs mode and in single-data-file mode, each repeated with the data already stored,
 * and a single-data-file restore. Each prediction comes with where its minutes go, found by
 * taking the costs of {@link #COSTS} away one after the other; what is left is moving the data.
 */
final class WhatIf {
    /**
     * The costs a run's minutes are split into, in the order they are taken away: per-file work on
     * the store (a create and a close per table per segment, jobs mode only), the reply wait at the
     * end of each table, the COPY start the queue or the workers do not hide, the cluster's table
     * finish; what is left is moving the data.
     */
    static final List<String> COSTS = List.of("file create/close", "table-end reply wait", "COPY start", "table finish", "data");

    /** One predicted run (and a short label for charts), with its minutes per cost of {@link #COSTS}, which add up to its own. */
    record Prediction(String run, String label, Scenario scenario, BackupModel.Result result, double[] minutesByCost) {
    }

    private final ApplianceProfile profile;
    private final Cluster cluster;
    private final TableMix mix;
    private final int jobs;
    private final int copyQueue;

    WhatIf(ApplianceProfile profile, Cluster cluster, TableMix mix, int jobs, int copyQueue) {
        if (jobs < 1 || copyQueue < 1) {
            throw new IllegalArgumentException("--jobs and --copy-queue-size must be at least 1");
        }
        this.profile = profile;
        this.cluster = cluster;
        this.mix = mix;
        this.jobs = jobs;
        this.copyQueue = copyQueue;
    }

    public Cluster cluster() {
        return cluster;
    }

    public int jobs() {
        return jobs;
    }

    public int copyQueue() {
        return copyQueue;
    }

    public TableMix mix() {
        return mix;
    }

    /** The model of this site, for any scenario. */
    public BackupModel model() {
        return new BackupModel(profile, cluster, mix);
    }

    /** Every run of the what-if, in order. */
    public List<Prediction> predict() {
        List<Prediction> out = new ArrayList<>();
        out.add(predict("backup, jobs", "backup jobs", scenario(Mode.JOBS, false, false)));
        out.add(predict("backup, single-data-file", "backup sdf", scenario(Mode.SINGLE_DATA_FILE, false, false)));
        out.add(predict("repeat backup, jobs", "repeat jobs", scenario(Mode.JOBS, true, false)));
        out.add(predict("repeat backup, single-data-file", "repeat sdf", scenario(Mode.SINGLE_DATA_FILE, true, false)));
        out.add(predict("restore, single-data-file", "restore sdf", scenario(Mode.SINGLE_DATA_FILE, false, true)));
        return out;
    }

    private Scenario scenario(Mode mode, boolean repeat, boolean restore) {
        return new Scenario(mode, jobs, copyQueue, Tables.ALL, Target.APPLIANCE, repeat, restore);
    }

    private Prediction predict(String name, String label, Scenario s) {
        ApplianceProfile noFiles = ProfileEdits.timings(profile, profile.requestLatency(), Duration.ZERO, Duration.ZERO, Duration.ZERO);
        ApplianceProfile noWaits = ProfileEdits.timings(profile, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO);
        // the COPY start goes before the finish: what the queue hides is judged with the finish in place
        Cluster noStart = cluster.withCopyStartSeconds(0);
        Cluster noTableCosts = noStart.withTableFinishSeconds(0);
        BackupModel.Result full = model().run(s);
        double[] steps = {
            full.minutes(),
            new BackupModel(noFiles, cluster, mix).run(s).minutes(),
            new BackupModel(noWaits, cluster, mix).run(s).minutes(),
            new BackupModel(noWaits, noStart, mix).run(s).minutes(),
            new BackupModel(noWaits, noTableCosts, mix).run(s).minutes(),
        };
        double[] byCost = new double[COSTS.size()];
        for (int i = 0; i < byCost.length - 1; i++) {
            byCost[i] = steps[i] - steps[i + 1];
        }
        byCost[byCost.length - 1] = steps[steps.length - 1];
        return new Prediction(name, label, s, full, byCost);
    }

    /** The predictions as a table: minutes, hours and MB/s of table data per run. */
    public static ResultTable table(List<Prediction> predictions) {
        ResultTable t = new ResultTable("What-if: minutes and MB/s of table data (MB = 2^20 bytes)", "run", "jobs", "queue", "minutes",
                "hours", "MB/s");
        for (Prediction p : predictions) {
            boolean isJobs = p.scenario().mode() == Mode.JOBS;
            t.add(p.run(), isJobs ? (Object) p.scenario().jobs() : null, isJobs ? null : (Object) p.scenario().copyQueue(),
                    p.result().minutes(), p.result().minutes() / 60, p.result().mbps());
        }
        return t;
    }

    /** Where each run's minutes go, cost by cost. */
    static ResultTable breakdown(List<Prediction> predictions) {
        List<String> cols = new ArrayList<>(List.of("run"));
        cols.addAll(COSTS);
        cols.add("total");
        ResultTable t = new ResultTable("Where the minutes go (each cost taken away in turn, left to right)", cols);
        for (Prediction p : predictions) {
            List<Object> row = new ArrayList<>(List.of(p.run()));
            for (double m : p.minutesByCost()) {
                row.add(m);
            }
            row.add(p.result().minutes());
            t.add(row.toArray());
        }
        return t;
    }
}
