package io.gpdedup.bench.model;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.report.Charts;
import io.gpdedup.bench.report.Progress;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import io.gpdedup.bench.report.Figures;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code gpdedup-bench model}: the reference measurement (tables A to F of docs/appliance.md) from
 * the appliance profile by simulation at cluster scale, each cell beside the measured figure with
 * the error in %; with what-if options, an admin's own cluster instead.
 */
@Command(name = "model", mixinStandardHelpOptions = true,
        description = {"The reference measurement (streams, backups and a restore on the reference appliance) simulated at cluster scale with an appliance profile, beside the measured figures.",
            "22 hosts, 31,200 tables, 3 TiB; every cell with its error in %%. Without --profile: the built-in reference appliance. See docs/appliance.md.",
            "With any what-if option (--hosts, --tables, --data, --empty-fraction, --jobs, --copy-queue-size, --copy-start-ms, "
                + "--table-finish-ms): your own cluster instead; backups in both modes, repeated, and a restore, with where their "
                + "minutes go, printed and drawn in --out DIR (default ./" + "gpdedup-whatif)."})
public final class ModelCommand implements Callable<Integer> {
    @Option(names = "--profile", paramLabel = "FILE",
            description = "Appliance profile: the reference appliance (built in, the default) or your store's, written by calibrate --host.")
    Path profileFile;

    @Option(names = "--segments-per-host", paramLabel = "S", defaultValue = "8",
            description = "Primary segments per host (default ${DEFAULT-VALUE}, an assumption for the reference cluster; with --fit refitted for it).")
    int segmentsPerHost;

    @Option(names = "--out", paramLabel = "DIR", description = "Also write CSV, JSON and PNG charts here (a what-if: default ./gpdedup-whatif).")
    Path out;

    @Option(names = "--fit", description = "Solve the profile from the reference measurement's stream tests, fit what they cannot determine (the cluster's per-table costs on two local file system backups, one appliance request time on the first backup, the appliance's read capacity on the restore), print where each value comes from, and model with the result.")
    boolean fit;

    @Option(names = "--check", description = "Exit 1 unless every predicted (not fitted) cell of the stream tests is within 10%% of the reference measurement and of the backups and restore within 25%%.")
    boolean check;

    @Option(names = "--quiet", description = "No progress bar.")
    boolean quiet;

    @Mixin
    WhatIfOptions whatIf;

    @Override
    public Integer call() {
        KitProfile chosen;
        ApplianceProfile profile;
        Cluster cluster;
        try {
            chosen = KitProfile.choose(profileFile);
            profile = chosen.profile();
            chosen.calibrated().flatMap(Calibrated::tooBrief).ifPresent(System.err::println);
            cluster = Cluster.seed003().withSegmentsPerHost(segmentsPerHost);
            if (whatIf.given()) {
                if (fit || check) {
                    throw new IllegalArgumentException("--fit and --check compare with the reference measurement; a what-if has none");
                }
                return whatIf.run(chosen, segmentsPerHost, out, System.out);
            }
        } catch (IllegalArgumentException e) {
            System.err.println("model: " + e.getMessage());
            return 2;
        }
        TableMix mix = TableMix.seed003();
        try (Progress progress = quiet ? Progress.quiet() : Progress.start("model", fit ? 2 : 1)) {
            if (fit) {
                Calibration.Fitted solved = Calibration.fromTablesAToC(profile);
                solved.table().print(System.out);
                System.out.println();
                Calibration.Fitted fitted = new Calibration().fit(solved.profile(), cluster, mix);
                progress.step(1);
                profile = fitted.profile();
                cluster = fitted.cluster();
                fitted.table().print(System.out);
                System.out.println();
            }
            Reproduction r = new Reproduction(profile, cluster, mix).run();
            progress.step(1);
            printAll(r, chosen, cluster);
            if (out != null) {
                write(r, RunFiles.in(out), chosen, profile, cluster);
            }
            boolean ok = r.worstError("ABC") <= 10 && r.worstError("DEF") <= 25;
            return check && !ok ? 1 : 0;
        }
    }

    private static void printAll(Reproduction r, KitProfile chosen, Cluster cluster) {
        System.out.printf(Locale.ROOT, "profile: %s; cluster %d hosts x %d segments; %,d tables, %.1f TiB%n%n", chosen.describe(),
                cluster.hosts(), cluster.segmentsPerHost(), 31_200, 3.0);
        for (ResultTable t : r.tables().values()) {
            t.print(System.out);
            System.out.println();
        }
        System.out.printf(Locale.ROOT, "worst error against the reference measurement: streams %s%% (limit 10%%), "
                + "backups and restore %s%% over the predicted rows (limit 25%%)%n",
                Figures.fixed(r.worstError("ABC"), 1), Figures.fixed(r.worstError("DEF"), 1));
        List<String> beyond = java.util.stream.Stream.concat(r.beyond("ABC", 10).stream(), r.beyond("DEF", 25).stream())
                .map(c -> String.format(Locale.ROOT, "%s %s (%s%%)", Reproduction.heading(c.table()), c.what(),
                        (c.errorPercent() > 0 ? "+" : "") + Figures.fixed(c.errorPercent(), 1)))
                .toList();
        System.out.println("beyond the limit: " + (beyond.isEmpty() ? "none" : String.join("; ", beyond)));
    }

    private static void write(Reproduction r, RunFiles files, KitProfile chosen, ApplianceProfile used, Cluster cluster) {
        files.info("gpdedup-bench model: the reference measurement at cluster scale",
                "gpdedup-bench model" + chosen.option() + " --segments-per-host " + cluster.segmentsPerHost(),
                List.of("profile: " + chosen.describe(), "cluster: " + cluster));
        for (var e : r.tables().entrySet()) {
            files.table("table-" + e.getKey().toLowerCase(Locale.ROOT), e.getValue());
        }
        ResultTable errors = new ResultTable("Every cell", "table", "cell", "model", "reference", "error %");
        for (Reproduction.Cell c : r.cells()) {
            errors.add(c.table(), c.what(), c.ours(), c.published(), c.errorPercent());
        }
        files.table("cells", errors);
        bars(files, "table-a", "Channel test: MB/s by threads", "threads", r, "A");
        bars(files, "table-b", "Plugin on one host: MB/s by threads", "threads", r, "B");
        bars(files, "table-c", "10 threads per host: MB/s per host", "hosts/host", r, "C");
        bars(files, "table-d", "gpbackup to the appliance: MB/s by run (log scale)", "run", r, "D");
        bars(files, "table-e", "gpbackup to a local file system: MB/s by run", "run", r, "E");
        bars(files, "table-f", "gprestore from the appliance: MB/s", "run", r, "F");
        StreamModel.Result ten = new StreamModel(used).run(StreamModel.Source.PLUGIN, tailFiles());
        List<Charts.Series> line = new ArrayList<>();
        line.add(series("host total", ten.hostTimeline()[0]));
        Charts.line(files.file("table-b-timeline.png"), "10 files of 2 to 38 GB on one host: MB/s per second",
                "second", "MB/s", line);
        List<Charts.Series> hosts = new ArrayList<>();
        StreamModel.Result eight = r.hostRuns().get(8);
        for (int h = 0; h < eight.hostTimeline().length; h++) {
            hosts.add(series("host" + (h + 1), eight.hostTimeline()[h]));
        }
        Charts.line(files.file("table-c-timeline.png"), "8 hosts x 10 threads: MB/s per host per second", "second", "MB/s", hosts);
        System.out.println("wrote " + files.dir());
    }

    /** Ten files of 2, 6, ..., 38 GB: the rate steps down as each finishes. */
    static double[][] tailFiles() {
        double[][] f = new double[1][10];
        for (int i = 0; i < 10; i++) {
            f[0][i] = (2 + 4 * i) * 1024.0;
        }
        return f;
    }

    private static Charts.Series series(String name, double[] y) {
        double[] x = new double[y.length];
        for (int i = 0; i < x.length; i++) {
            x[i] = i;
        }
        return new Charts.Series(name, x, y);
    }

    private static void bars(RunFiles files, String name, String title, String xTitle, Reproduction r, String table) {
        List<String> cats = new ArrayList<>();
        List<Double> ours = new ArrayList<>();
        List<Double> pub = new ArrayList<>();
        for (Reproduction.Cell c : r.cells()) {
            if (c.table().equals(table)) {
                cats.add(shortLabel(c));
                ours.add(c.ours());
                pub.add(c.published());
            }
        }
        Map<String, double[]> groups = new LinkedHashMap<>();
        groups.put("model", ours.stream().mapToDouble(Double::doubleValue).toArray());
        groups.put("reference", pub.stream().mapToDouble(Double::doubleValue).toArray());
        Charts.bars(files.file(name + ".png"), title, xTitle, "MB/s", cats, groups, table.equals("D"));
    }

    /** "#3 single-data-file" for a D–F run (number and name), "4h host2" for a C host, the thread count for A and B. */
    private static String shortLabel(Reproduction.Cell c) {
        String w = c.what();
        if (w.startsWith("#")) {
            return w;
        }
        return w.replace(" threads", "").replace(" hosts, ", "h ").replace(" files left", " left");
    }
}
