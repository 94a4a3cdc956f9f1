package io.gpdedup.bench.model;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.report.Charts;
import io.gpdedup.bench.report.Progress;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
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
 * {@code gpdedup-bench model}: the seed's tables A to F from the appliance profile by simulation
 * at cluster scale, each cell beside the published figure with the error in %.
 */
@Command(name = "model", mixinStandardHelpOptions = true,
        description = {"Tables A to F of the seed simulated at cluster scale with an appliance profile, beside the published figures.",
            "22 hosts, 31,200 tables, 3 TiB; every cell with its error in %%. See docs/appliance.md.",
            "With any what-if option (--hosts, --tables, --data, --empty-fraction, --jobs, --copy-queue-size, --copy-start-ms, "
                + "--table-finish-ms): your own cluster instead; backups in both modes, repeated, and a restore, with where their "
                + "minutes go, printed and drawn in --out DIR (default ./" + "gpdedup-whatif)."})
public final class ModelCommand implements Callable<Integer> {
    static final String DEFAULT_PROFILE = "profiles/seed003.yaml";

    @Option(names = "--profile", paramLabel = "FILE",
            description = "Appliance profile (default: " + DEFAULT_PROFILE + ", looked up from the working directory up, then beside the installation).")
    Path profileFile;

    @Option(names = "--segments-per-host", paramLabel = "S", defaultValue = "8",
            description = "Primary segments per host (default ${DEFAULT-VALUE}, an assumption for the seed's cluster; with --fit refitted for it).")
    int segmentsPerHost;

    @Option(names = "--out", paramLabel = "DIR", description = "Also write CSV, JSON and PNG charts here (a what-if: default ./gpdedup-whatif).")
    Path out;

    @Option(names = "--fit", description = "Solve the profile from tables A to C, fit what they cannot determine (the cluster's per-table costs on table E rows 15 and 17, one appliance request time on table D row 1, the appliance's read capacity on table F row 18), print where each value comes from, and model with the result.")
    boolean fit;

    @Option(names = "--check", description = "Exit 1 unless every predicted (not fitted) cell of A to C is within 10%% and of D to F within 25%%.")
    boolean check;

    @Option(names = "--quiet", description = "No progress bar.")
    boolean quiet;

    @Mixin
    WhatIfOptions whatIf;

    @Override
    public Integer call() {
        Path file;
        ApplianceProfile profile;
        Cluster cluster;
        try {
            file = locateProfile(profileFile);
            profile = ApplianceProfile.load(file);
            cluster = Cluster.seed003().withSegmentsPerHost(segmentsPerHost);
            if (whatIf.given()) {
                if (fit || check) {
                    throw new IllegalArgumentException("--fit and --check compare with the seed's published tables; a what-if has none");
                }
                return whatIf.run(file, profile, segmentsPerHost, out, System.out);
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
            printAll(r, file, cluster);
            if (out != null) {
                write(r, RunFiles.in(out), file, profile, cluster);
            }
            boolean ok = r.worstError("ABC") <= 10 && r.worstError("DEF") <= 25;
            return check && !ok ? 1 : 0;
        }
    }

    private static void printAll(Reproduction r, Path file, Cluster cluster) {
        System.out.printf(Locale.ROOT, "profile %s; cluster %d hosts x %d segments; %,d tables, %.1f TiB%n%n", file,
                cluster.hosts(), cluster.segmentsPerHost(), 31_200, 3.0);
        for (ResultTable t : r.tables().values()) {
            t.print(System.out);
            System.out.println();
        }
        System.out.printf(Locale.ROOT, "worst error: A-C %.1f%% (limit 10%%), D-F %.1f%% over the predicted rows (limit 25%%)%n",
                r.worstError("ABC"), r.worstError("DEF"));
        List<String> beyond = java.util.stream.Stream.concat(r.beyond("ABC", 10).stream(), r.beyond("DEF", 25).stream())
                .map(c -> String.format(Locale.ROOT, "%s %s (%+.1f%%)", c.table(), c.what(), c.errorPercent()))
                .toList();
        System.out.println("beyond the limit: " + (beyond.isEmpty() ? "none" : String.join("; ", beyond)));
    }

    private static void write(Reproduction r, RunFiles files, Path profile, ApplianceProfile used, Cluster cluster) {
        files.info("gpdedup-bench model: tables A to F at cluster scale",
                "gpdedup-bench model --profile " + profile + " --segments-per-host " + cluster.segmentsPerHost(),
                List.of("profile " + profile, "cluster: " + cluster));
        for (var e : r.tables().entrySet()) {
            files.table("table-" + e.getKey().toLowerCase(Locale.ROOT), e.getValue());
        }
        ResultTable errors = new ResultTable("Every cell", "table", "cell", "ours", "published", "error %");
        for (Reproduction.Cell c : r.cells()) {
            errors.add(c.table(), c.what(), c.ours(), c.published(), c.errorPercent());
        }
        files.table("cells", errors);
        bars(files, "table-a", "A. Channel test: MB/s by threads", "threads", r, "A");
        bars(files, "table-b", "B. Isolated plugin, one host: MB/s by threads", "threads", r, "B");
        bars(files, "table-c", "C. 10 threads per host: MB/s per host", "hosts/host", r, "C");
        bars(files, "table-d", "D. gpbackup to the appliance: MB/s by run (log scale)", "run", r, "D");
        bars(files, "table-e", "E. gpbackup to a local file system: MB/s by run", "run", r, "E");
        bars(files, "table-f", "F. gprestore from the appliance: MB/s", "run", r, "F");
        StreamModel.Result ten = new StreamModel(used).run(StreamModel.Source.PLUGIN, tailFiles());
        List<Charts.Series> line = new ArrayList<>();
        line.add(series("host total", ten.hostTimeline()[0]));
        Charts.line(files.file("table-b-timeline.png"), "B. 10 files of 2 to 38 GB on one host: MB/s per second",
                "second", "MB/s", line);
        List<Charts.Series> hosts = new ArrayList<>();
        StreamModel.Result eight = r.hostRuns().get(8);
        for (int h = 0; h < eight.hostTimeline().length; h++) {
            hosts.add(series("host" + (h + 1), eight.hostTimeline()[h]));
        }
        Charts.line(files.file("table-c-timeline.png"), "C. 8 hosts x 10 threads: MB/s per host per second", "second", "MB/s", hosts);
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
        groups.put("published", pub.stream().mapToDouble(Double::doubleValue).toArray());
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

    /** The profile given, else profiles/seed003.yaml from the working directory up or beside the installation. */
    static Path locateProfile(Path given) {
        if (given != null) {
            return given;
        }
        for (Path d = Paths.get("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path p = d.resolve(DEFAULT_PROFILE);
            if (Files.isRegularFile(p)) {
                return p;
            }
        }
        try {
            Path jar = Paths.get(ModelCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            for (Path d = jar.getParent(); d != null; d = d.getParent()) {
                Path p = d.resolve(DEFAULT_PROFILE);
                if (Files.isRegularFile(p)) {
                    return p;
                }
            }
        } catch (URISyntaxException | RuntimeException e) {
            // fall through to the error below
        }
        throw new IllegalArgumentException("cannot find " + DEFAULT_PROFILE + ": give --profile FILE");
    }
}
