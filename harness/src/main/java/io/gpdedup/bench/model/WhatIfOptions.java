package io.gpdedup.bench.model;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.report.Charts;
import io.gpdedup.bench.report.Figures;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import picocli.CommandLine.Option;

/**
 * The what-if options of {@code gpdedup-bench model}: a site's own cluster and database. Any of
 * them turns the command from reproducing the reference measurement into predicting the site's
 * backups and restore; those not given keep the reference cluster's values, so its own parameters
 * give the reference measurement's backups and restore again.
 */
final class WhatIfOptions {
    /** Where the chart and tables go when {@code --out} is not given. */
    static final Path DEFAULT_OUT = Path.of("gpdedup-whatif");

    @Option(names = "--hosts", paramLabel = "N", description = "What-if: segment hosts (default: the reference cluster's 22).")
    Integer hosts;

    @Option(names = "--tables", paramLabel = "T", description = "What-if: tables in the database (default: the reference cluster's 31,200).")
    Integer tables;

    // Parsed here rather than by picocli, so that a bad size is one line like every other bad value.
    @Option(names = "--data", paramLabel = "SIZE",
            description = "What-if: table data before COPY turns it into CSV, e.g. 3TiB, 800GB (binary units; default: the reference cluster's 3TiB).")
    String data;

    @Option(names = "--empty-fraction", paramLabel = "F", description = "What-if: share of the tables that are empty (default: the reference cluster's 0.28).")
    Double emptyFraction;

    @Option(names = "--jobs", paramLabel = "J", description = "What-if: gpbackup --jobs for the jobs-mode backups (default: the reference measurement's 15).")
    Integer jobs;

    @Option(names = "--copy-queue-size", paramLabel = "Q",
            description = "What-if: --copy-queue-size for the single-data-file backups and the restore (default: the reference measurement's 20).")
    Integer copyQueue;

    @Option(names = "--copy-start-ms", paramLabel = "MS",
            description = "What-if: the cluster's time from handing a table to a COPY to its first bytes (default: the reference cluster's, fitted on its local disk backups).")
    Double copyStartMs;

    @Option(names = "--table-finish-ms", paramLabel = "MS",
            description = "What-if: the cluster's serial cost of ending one table's COPY on a segment (default: the reference cluster's, fitted on its local disk backups).")
    Double tableFinishMs;

    /** Whether any what-if option was given. */
    boolean given() {
        return Stream.of(hosts, tables, data, emptyFraction, jobs, copyQueue, copyStartMs, tableFinishMs).anyMatch(Objects::nonNull);
    }

    /** The site these options describe, with {@code segmentsPerHost} and the store of {@code profile}. */
    WhatIf build(ApplianceProfile profile, int segmentsPerHost) {
        Cluster seed = Cluster.seed003();
        for (Double ms : new Double[] {copyStartMs, tableFinishMs}) {
            if (ms != null && !(ms >= 0 && ms < 3_600_000)) {
                throw new IllegalArgumentException("--copy-start-ms and --table-finish-ms must be between 0 and an hour, got "
                        + Figures.plain(ms));
            }
        }
        Cluster cluster = new Cluster(or(hosts, seed.hosts()), segmentsPerHost, seed.csvInflation(), seed.csvCompression(),
                copyStartMs == null ? seed.copyStartSeconds() : copyStartMs / 1000,
                tableFinishMs == null ? seed.tableFinishSeconds() : tableFinishMs / 1000);
        TableMix mix = TableMix.site(or(tables, TableMix.SEED_TABLES), data == null ? TableMix.SEED_BYTES : dataBytes(),
                emptyFraction == null ? TableMix.SEED_EMPTY_FRACTION : emptyFraction);
        return new WhatIf(profile, cluster, mix, or(jobs, Published.run(1).jobs()), or(copyQueue, Published.run(3).copyQueue()));
    }

    private long dataBytes() {
        try {
            return ReferenceSize.parse(data);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--data: " + e.getMessage());
        }
    }

    private static int or(Integer given, int seed) {
        return given == null ? seed : given;
    }

    /** Predicts, prints the tables and writes them with the chart to {@code out} (default {@link #DEFAULT_OUT}). */
    int run(KitProfile chosen, int segmentsPerHost, Path out, PrintStream stdout) {
        WhatIf w = build(chosen.profile(), segmentsPerHost);
        Cluster c = w.cluster();
        List<TableMix.Table> all = w.mix().tables();
        long empty = all.stream().filter(t -> t.bytes() == 0).count();
        String site = String.format(Locale.ROOT, "%d hosts x %d segments; %,d tables (%.0f%% empty), %.2f TiB of table data",
                c.hosts(), c.segmentsPerHost(), all.size(), 100.0 * empty / all.size(), TableMix.totalBytes(all) / TableMix.TIB);
        String costs = String.format(Locale.ROOT, "cluster: COPY start %s ms, table finish %s ms; CSV %sx the table data, "
                + "compressed %sx by the client", Figures.fixed(c.copyStartSeconds() * 1000, 0), Figures.fixed(c.tableFinishSeconds() * 1000, 1),
                Figures.fixed(c.csvInflation(), 2), Figures.fixed(c.csvCompression(), 1));
        stdout.println("what-if: " + site);
        stdout.println("profile: " + chosen.describe() + "; " + costs);
        stdout.println();
        List<WhatIf.Prediction> predictions = w.predict();
        ResultTable table = WhatIf.table(predictions);
        ResultTable breakdown = WhatIf.breakdown(predictions);
        table.print(stdout);
        stdout.println();
        breakdown.print(stdout);
        RunFiles files = RunFiles.in(out == null ? DEFAULT_OUT : out);
        files.table("whatif", table);
        files.table("whatif-breakdown", breakdown);
        Map<String, double[]> parts = new LinkedHashMap<>();
        for (int i = 0; i < WhatIf.COSTS.size(); i++) {
            int cost = i;
            parts.put(WhatIf.COSTS.get(i), predictions.stream().mapToDouble(p -> p.minutesByCost()[cost]).toArray());
        }
        Path png = Charts.stackedBars(files.file("whatif.png"), "Where the minutes go: " + site, "run", "minutes",
                predictions.stream().map(WhatIf.Prediction::label).toList(), parts);
        files.info("gpdedup-bench model: what-if", commandLine(w, chosen, segmentsPerHost), List.of("profile: " + chosen.describe(), site, costs));
        stdout.println();
        stdout.println("wrote " + files.dir() + " (chart: " + png + ")");
        return 0;
    }

    /** The command line that predicts the same again, every value spelled out. */
    private String commandLine(WhatIf w, KitProfile chosen, int segmentsPerHost) {
        return String.format(Locale.ROOT, "gpdedup-bench model%s --hosts %d --segments-per-host %d --tables %d --data %s "
                + "--empty-fraction %s --jobs %d --copy-queue-size %d --copy-start-ms %s --table-finish-ms %s", chosen.option(),
                w.cluster().hosts(), segmentsPerHost, w.mix().tables().size(), ReferenceSize.exact(Math.round(TableMix.totalBytes(w.mix().tables()))),
                Figures.plain(emptyFraction == null ? TableMix.SEED_EMPTY_FRACTION : emptyFraction), w.jobs(), w.copyQueue(),
                Figures.plain(w.cluster().copyStartSeconds() * 1000), Figures.plain(w.cluster().tableFinishSeconds() * 1000));
    }
}
