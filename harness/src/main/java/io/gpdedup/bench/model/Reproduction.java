package io.gpdedup.bench.model;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.model.Published.Run;
import io.gpdedup.bench.model.StreamModel.Source;
import io.gpdedup.bench.report.ResultTable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs the model for every published cell of tables A to F and sets our figure beside the
 * published one with the error in %.
 */
final class Reproduction {
    /**
     * One compared cell; {@code fitted} when a parameter is fitted on it, which keeps it out of the
     * validation error (it matches by construction).
     */
    record Cell(String table, String what, double ours, double published, boolean fitted) {
        Cell(String table, String what, double ours, double published) {
            this(table, what, ours, published, false);
        }

        public double errorPercent() {
            return (ours - published) / published * 100;
        }
    }

    /** Table B and C file sizes: 200 GB in all on a host (table B), 1 GB per thread (table A). */
    static final double B_TOTAL_MB = 200 * 1024;
    static final double A_FILE_MB = 1024;

    private final ApplianceProfile profile;
    private final Cluster cluster;
    private final TableMix mix;
    private final List<Cell> cells = new ArrayList<>();
    private final Map<String, ResultTable> tables = new LinkedHashMap<>();
    private final Map<Integer, BackupModel.Result> runs = new LinkedHashMap<>();
    private StreamModel.Result bTen;
    private final Map<Integer, StreamModel.Result> cRuns = new LinkedHashMap<>();

    Reproduction(ApplianceProfile profile, Cluster cluster, TableMix mix) {
        this.profile = profile;
        this.cluster = cluster;
        this.mix = mix;
    }

    /** Computes every table; returns this. */
    public Reproduction run() {
        StreamModel streams = new StreamModel(profile);
        ResultTable a = new ResultTable(heading("A") + ", synthetic, unique data, 1 GB per thread (MB/s)",
                "threads", "model MB/s", "reference MB/s", "error %");
        for (int i = 0; i < Published.A_THREADS.length; i++) {
            int n = Published.A_THREADS[i];
            double ours = streams.equalFiles(Source.CHANNEL, 1, n, A_FILE_MB).totalMBps();
            add(a, new Cell("A", n + " threads", ours, Published.A_MBPS[i]), n);
        }
        tables.put("A", a);

        ResultTable b = new ResultTable(heading("B") + ", 200 GB in N files (MB/s)",
                "threads", "model MB/s", "reference MB/s", "error %");
        for (int i = 0; i < Published.B_THREADS.length; i++) {
            int n = Published.B_THREADS[i];
            StreamModel.Result r = streams.equalFiles(Source.PLUGIN, 1, n, B_TOTAL_MB / n);
            if (n == 10) {
                bTen = r;
            }
            add(b, new Cell("B", n + " threads", r.totalMBps(), Published.B_MBPS[i]), n);
        }
        add(b, new Cell("B", "2 of 10 files left", streams.tailMBps(10, 2), Published.B_TWO_LEFT_MBPS), "2 of 10 left");
        tables.put("B", b);

        ResultTable c = new ResultTable(heading("C") + ", 10 threads per host (MB/s per host)",
                "hosts", "host", "model MB/s", "reference MB/s", "error %");
        for (int i = 0; i < Published.C_HOSTS.length; i++) {
            int hosts = Published.C_HOSTS[i];
            StreamModel.Result r = streams.equalFiles(Source.PLUGIN, hosts, 10, B_TOTAL_MB / 10);
            cRuns.put(hosts, r);
            for (int h = 0; h < hosts; h++) {
                Cell cell = new Cell("C", hosts + " hosts, host" + (h + 1), r.hostMBps()[h], Published.C_PER_HOST[i][h]);
                cells.add(cell);
                c.add(hosts, "host" + (h + 1), cell.ours(), cell.published(), cell.errorPercent());
            }
            Cell total = new Cell("C", hosts + " hosts, total", r.totalMBps(), Published.C_TOTAL[i]);
            cells.add(total);
            c.add(hosts, "total", total.ours(), total.published(), total.errorPercent());
        }
        tables.put("C", c);

        BackupModel backups = new BackupModel(profile, cluster, mix);
        for (String t : List.of("D", "E", "F")) {
            tables.put(t, new ResultTable(title(t), "#", "run", "jobs", "queue", "data TiB", "model min", "reference min",
                    "model MB/s", "reference MB/s", "error %", "role"));
        }
        for (Run run : Published.RUNS) {
            BackupModel.Result r = backups.run(run.scenario());
            runs.put(run.row(), r);
            boolean fitted = Calibration.FITTED_ROWS.contains(run.row());
            Cell cell = new Cell(run.table(), "#" + run.row() + " " + run.label(), r.mbps(), run.mbps(), fitted);
            cells.add(cell);
            tables.get(run.table()).add(run.row(), run.label() + (run.repeat() ? " (repeat)" : ""),
                    run.mode() == Published.Mode.JOBS ? (Object) run.jobs() : null,
                    run.mode() == Published.Mode.SINGLE_DATA_FILE ? (Object) run.copyQueue() : null,
                    r.tableBytes() / TableMix.TIB, r.minutes(), run.minutes(), r.mbps(), run.mbps(), cell.errorPercent(),
                    fitted ? "fitted" : "predicted");
        }
        return this;
    }

    private static String title(String t) {
        return switch (t) {
            case "D" -> heading(t) + ": gpbackup through the plugin (22 hosts, 31,200 tables)";
            case "E" -> heading(t) + ": gpbackup to a local file system";
            default -> heading(t) + ": gprestore from the appliance";
        };
    }

    /** What a person calls the reference measurement's table {@code t} ("A" to "F"). */
    static String heading(String t) {
        return switch (t) {
            case "A" -> "Channel test";
            case "B" -> "Plugin, one host";
            case "C" -> "Plugin, several hosts";
            case "D" -> "Backups to the appliance";
            case "E" -> "Backups to local disk";
            case "F" -> "Restore";
            default -> throw new IllegalArgumentException("no table " + t);
        };
    }

    private void add(ResultTable t, Cell cell, Object label) {
        cells.add(cell);
        t.add(label, cell.ours(), cell.published(), cell.errorPercent());
    }

    public List<Cell> cells() {
        return List.copyOf(cells);
    }

    /** Tables "A" to "F", in order. */
    public Map<String, ResultTable> tables() {
        return tables;
    }

    public Map<Integer, BackupModel.Result> runs() {
        return runs;
    }

    /** Table B with 10 threads: its per-second timeline. */
    StreamModel.Result tenThreads() {
        return bTen;
    }

    /** Table C per host count. */
    Map<Integer, StreamModel.Result> hostRuns() {
        return cRuns;
    }

    /** The largest |error| in % over the predicted (not fitted) cells of the given tables ("ABC", "DEF"). */
    double worstError(String whichTables) {
        return predicted(whichTables).mapToDouble(c -> Math.abs(c.errorPercent())).max().orElse(0);
    }

    /** The predicted cells of the given tables beyond {@code limitPercent}. */
    public List<Cell> beyond(String whichTables, double limitPercent) {
        return predicted(whichTables).filter(c -> Math.abs(c.errorPercent()) > limitPercent).toList();
    }

    private java.util.stream.Stream<Cell> predicted(String whichTables) {
        return cells.stream().filter(c -> !c.fitted() && whichTables.contains(c.table()));
    }
}
