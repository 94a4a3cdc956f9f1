package io.gpdedup.bench.runner;

import io.gpdedup.bench.model.BackupModel;
import io.gpdedup.bench.model.Cluster;
import io.gpdedup.bench.model.Published;
import io.gpdedup.bench.model.ReferenceSize;
import io.gpdedup.bench.model.TableMix;
import io.gpdedup.bench.report.Charts;
import io.gpdedup.bench.report.Progress;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code gpdedup-bench gpbackup-sim}: gpbackup's data phase with the real plugin, live at small scale. */
@Command(name = "gpbackup-sim", mixinStandardHelpOptions = true,
        exitCodeListHeading = Commands.EXIT_HEADING,
        exitCodeList = {Commands.EXIT_OK, Commands.EXIT_FAILED, Commands.EXIT_USAGE, Commands.EXIT_SHAPE},
        description = {"gpbackup's data phase, live and small, with the real gpbackup_dedup_plugin against a gpdedup-store serving "
                + "through the appliance profile: simulated segment hosts (own loopback address and plugin agent each) with a few "
                + "segments; jobs mode makes one backup_data per table per segment, single-data-file mode one stream per segment "
                + "with a TOC of [start, end) offsets uploaded with backup_file; --restore reads everything back with restore_file "
                + "and restore_data (checked byte for byte) and, in single-data-file mode, a filtered restore with restore_data_subset.",
            "Tables: a scaled sample of the reference database (all: 31,200 tables, 5%% large, 28%% empty) or a FILE of lines "
                + "'<oid> <size>' (e.g. '16384 2GB'). Sizes are in reference units; speed = table data / wall time, as in the "
                + "reference measurement. Each phase is compared with the model run on the same small cluster and tables; the "
                + "reference measurement's (cluster-scale) row of the same kind is shown for context."})
public final class GpbackupSimCommand implements Callable<Integer> {
    /** The seed database's table count and class totals: the sample keeps their proportions. */
    static final int SEED_TABLES = 31_200;

    @Option(names = "--mode", paramLabel = "jobs|sdf", description = "jobs (multi-file) or sdf (single-data-file); default sdf")
    String mode = "sdf";

    @Option(names = "--jobs", paramLabel = "N", description = "jobs mode: tables in flight (default 15, as the reference measurement)")
    int jobs = 15;

    @Option(names = "--copy-queue-size", paramLabel = "Q", description = "single-data-file: COPYs queued ahead (default 20, as the reference measurement)")
    int copyQueue = 20;

    @Option(names = "--tables", paramLabel = "all|large|small|FILE", description = "which tables (default: all)")
    String tables = "all";

    @Option(names = "--table-count", paramLabel = "N", description = "tables sampled from the reference database (default 60; --quick 24)")
    Integer tableCount;

    @Option(names = "--hosts", paramLabel = "N", description = "segment hosts (default 2)")
    int hosts = 2;

    @Option(names = "--segments-per-host", paramLabel = "N", description = "primary segments per host (default 2)")
    int segmentsPerHost = 2;

    @Option(names = "--repeat", description = "back the same data up a second time (all duplicates)")
    boolean repeat;

    @Option(names = "--restore", description = "restore everything (and, single-data-file, a filtered subset), checking every byte")
    boolean restore;

    @Option(names = "--no-cluster-costs", description = "leave out the database's per-table costs (COPY start, table finish)")
    boolean noClusterCosts;

    @Option(names = "--quick", description = "fewer tables")
    boolean quick;

    @Mixin
    LiveOptions live;

    @Spec
    CommandSpec spec;

    record Loaded(List<GpbackupSim.Table> tables, TableMix mix, Published.Tables which) {
    }

    @Override
    public Integer call() throws Exception {
        return Commands.runReportingUsageErrors(spec, this::run);
    }

    private int run() throws Exception {
        GpbackupSim.Mode m = switch (mode.toLowerCase(Locale.ROOT)) {
            case "jobs" -> GpbackupSim.Mode.JOBS;
            case "sdf", "single-data-file" -> GpbackupSim.Mode.SDF;
            default -> throw new IllegalArgumentException("--mode must be jobs or sdf, got " + mode);
        };
        if (jobs < 1 || copyQueue < 1 || hosts < 1 || hosts > 64 || segmentsPerHost < 1 || segmentsPerHost > 16) {
            throw new IllegalArgumentException("--jobs, --copy-queue-size and --segments-per-host must be at least 1, --hosts 1..64");
        }
        int count = tableCount != null ? tableCount : quick ? 24 : 60;
        if (count < 1 || count > SEED_TABLES) {
            throw new IllegalArgumentException("--table-count must be 1.." + SEED_TABLES);
        }
        Loaded loaded = load(tables, count);
        Cluster seed = Cluster.seed003();
        try (LiveSession s = LiveSession.open(live)) {
            Cluster costs = noClusterCosts ? null : new Cluster(hosts, segmentsPerHost, seed.csvInflation(), seed.csvCompression(),
                    seed.copyStartSeconds(), seed.tableFinishSeconds());
            GpbackupSim.Settings settings = new GpbackupSim.Settings(m, jobs, copyQueue, hosts, segmentsPerHost, costs);
            List<GpbackupSim.Phase> phases = new ArrayList<>();
            double compression = Double.NaN;
            try (GpbackupSim sim = new GpbackupSim(s, settings, loaded.tables())) {
                long stream = sim.liveStreamBytes();
                long total = stream * (1 + (repeat ? 1 : 0) + (restore ? 2 : 0));
                try (Progress p = live.quiet ? Progress.quiet() : Progress.bytes("gpbackup-sim", total)) {
                    double raw0 = s.store().metric("gpdedup_store_put_raw_bytes_total");
                    double sent0 = s.store().metric("gpdedup_store_put_payload_bytes_total");
                    p.message("backup");
                    phases.add(sim.backup("backup", p));
                    double raw = s.store().metric("gpdedup_store_put_raw_bytes_total") - raw0;
                    double sent = s.store().metric("gpdedup_store_put_payload_bytes_total") - sent0;
                    compression = sent > 0 ? raw / sent : Double.NaN;
                    if (repeat) {
                        p.message("repeated backup");
                        phases.add(sim.backup("repeated backup", p));
                    }
                    if (restore) {
                        p.message("restore");
                        phases.add(sim.restore(p));
                        if (m == GpbackupSim.Mode.SDF) {
                            p.message("filtered restore");
                            phases.add(sim.restoreSubset(3, p));
                        }
                    }
                }
            }
            ResultTable table = table(s, m, loaded, phases, compression);
            table.print(System.out);
            ShapeChecks checks = new ShapeChecks("gpbackup-sim checks");
            if (restore) {
                checks.check("every restored byte matched what was backed up", true, "restore_data"
                        + (m == GpbackupSim.Mode.SDF ? " and restore_data_subset" : "") + " checked");
            }
            if (repeat) {
                checks.greater("a repeated backup of unchanged data is faster (dedup: no transfer)", phases.get(1).mbps(), phases.get(0).mbps());
            }
            checks.print(System.out);
            if (live.out != null) {
                RunFiles files = RunFiles.in(live.out);
                String name = "gpbackup-sim-" + (m == GpbackupSim.Mode.JOBS ? "jobs" : "sdf");
                files.table(name, table);
                Map<String, double[]> groups = new LinkedHashMap<>();
                groups.put("ours (live)", table.rows().stream().mapToDouble(r -> ((Number) r.get(6)).doubleValue()).toArray());
                groups.put("model (same cluster)", table.rows().stream().mapToDouble(r -> r.get(7) == null ? Double.NaN
                        : ((Number) r.get(7)).doubleValue()).toArray());
                // The table's title holds every setting; the chart's names the run, the CSV beside it the rest.
                String chartTitle = "gpbackup-sim (live), " + (m == GpbackupSim.Mode.JOBS ? "jobs" : "single-data-file") + ": reference MB/s by phase";
                Charts.bars(files.file(name + ".png"), chartTitle, "phase", "MB/s", phases.stream().map(GpbackupSim.Phase::name).toList(),
                        groups);
                if (!checks.isEmpty()) {
                    files.table(name + "-checks", checks.table());
                }
                List<String> notes = new ArrayList<>(Commands.notes(s));
                notes.add(String.format(Locale.ROOT, "plugin compression of the live CSV: %.2f", compression));
                files.info("gpdedup-bench gpbackup-sim", Commands.commandLine(spec), notes);
            }
            return checks.passed() ? 0 : 3;
        }
    }

    private ResultTable table(LiveSession s, GpbackupSim.Mode m, Loaded loaded, List<GpbackupSim.Phase> phases, double compression) {
        String shape = m == GpbackupSim.Mode.JOBS ? "jobs " + jobs : "single-data-file, copy-queue-size " + copyQueue;
        ResultTable t = new ResultTable(String.format(Locale.ROOT,
                "gpbackup-sim (live): %s, %d hosts x %d segments, %d tables (%s), reference MB/s of table data", shape, hosts,
                segmentsPerHost, loaded.tables().size(), tables),
                "phase", "mode", "tables", "table data GB", "plugin calls", "seconds", "ours MB/s", "model MB/s", "error %",
                "reference (cluster) MB/s");
        Cluster seed = Cluster.seed003();
        for (GpbackupSim.Phase p : phases) {
            boolean isRepeat = p.name().startsWith("repeated");
            boolean isRestore = p.name().startsWith("restore");
            Double model = null;
            if (loaded.mix() != null && !p.name().startsWith("filtered")) {
                Cluster c = new Cluster(hosts, segmentsPerHost, seed.csvInflation(), Double.isNaN(compression) ? seed.csvCompression()
                        : Math.max(1, compression), noClusterCosts ? 0 : seed.copyStartSeconds(), noClusterCosts ? 0 : seed.tableFinishSeconds());
                Published.Scenario run = new Published.Scenario(m == GpbackupSim.Mode.JOBS ? Published.Mode.JOBS
                        : Published.Mode.SINGLE_DATA_FILE, jobs, copyQueue, loaded.which(), Published.Target.APPLIANCE, isRepeat, isRestore);
                if (!(isRestore && m == GpbackupSim.Mode.JOBS)) {
                    model = new BackupModel(s.profile(), c, loaded.mix()).run(run).mbps();
                }
            }
            Double published = publishedContext(m, loaded.which(), isRepeat, isRestore, p.name().startsWith("filtered"));
            t.add(p.name(), m == GpbackupSim.Mode.JOBS ? "jobs" : "sdf", loaded.tables().size(), ReferenceSize.mb(p.tableBytes()) / 1024,
                    p.calls(), p.seconds(), p.mbps(), model, model == null ? null : (p.mbps() - model) / model * 100, published);
        }
        return t;
    }

    /**
     * The published cluster-scale figure of the same kind of run, if there is one (a restore: table
     * F's single-data-file restore, whatever the tables).
     */
    private Double publishedContext(GpbackupSim.Mode m, Published.Tables which, boolean isRepeat, boolean isRestore, boolean filtered) {
        if (filtered) {
            return null;
        }
        if (isRestore) {
            return m == GpbackupSim.Mode.SDF ? Published.run(18).mbps() : null;
        }
        Published.Mode pm = m == GpbackupSim.Mode.JOBS ? Published.Mode.JOBS : Published.Mode.SINGLE_DATA_FILE;
        for (Published.Run r : Published.RUNS) {
            if (r.target() == Published.Target.APPLIANCE && r.mode() == pm && r.tables() == (which == null ? r.tables() : which)
                    && r.repeat() == isRepeat && r.restore() == isRestore) {
                return r.mbps();
            }
        }
        return null;
    }

    /** The tables: a stratified sample of the seed database, or a FILE. */
    static Loaded load(String spec, int count) throws IOException {
        Published.Tables which = switch (spec.toLowerCase(Locale.ROOT)) {
            case "seed003", "all" -> Published.Tables.ALL;
            case "large" -> Published.Tables.LARGE;
            case "small" -> Published.Tables.SMALL;
            default -> null;
        };
        if (which == null) {
            return new Loaded(readFile(Path.of(spec)), null, null);
        }
        double share = count / (double) SEED_TABLES;
        TableMix mix = TableMix.of(count, 0.05, 0.28, 2.4 * TableMix.TIB * share, 0.6 * TableMix.TIB * share, 3);
        List<GpbackupSim.Table> list = new ArrayList<>();
        int oid = 16_384;
        for (TableMix.Table t : mix.select(which)) {
            list.add(new GpbackupSim.Table(oid++, Math.round(t.bytes())));
        }
        return new Loaded(list, mix, which);
    }

    static List<GpbackupSim.Table> readFile(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("--tables: not all, large, small or a readable file: " + file);
        }
        List<GpbackupSim.Table> out = new ArrayList<>();
        int lineNo = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            lineNo++;
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            String[] f = l.split("\\s+");
            try {
                if (f.length != 2) {
                    throw new IllegalArgumentException("expected '<oid> <size>'");
                }
                out.add(new GpbackupSim.Table(Integer.parseInt(f[0]), f[1].equals("0") ? 0 : ReferenceSize.parse(f[1])));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(file + " line " + lineNo + ": " + e.getMessage());
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException(file + " lists no tables");
        }
        return out;
    }
}
