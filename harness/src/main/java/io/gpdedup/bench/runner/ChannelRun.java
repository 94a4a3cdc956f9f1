package io.gpdedup.bench.runner;

import io.gpdedup.bench.model.Published;
import io.gpdedup.bench.model.ReferenceSize;
import io.gpdedup.bench.model.StreamModel;
import io.gpdedup.bench.report.Charts;
import io.gpdedup.bench.report.Figures;
import io.gpdedup.bench.report.Progress;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The channel test live (table A of the reference measurement): each thread count against the store
 * of a {@link LiveSession}, in reference MB/s next to the reference measurement and the model's prediction.
 */
final class ChannelRun {
    /** One thread count's outcome, in reference MB/s; {@code published} is NaN where the table has no cell. */
    public record Row(int threads, double ours, double published, double model, double readMBps, double seconds, double machineCpu,
            double ourCpu) {
        public double errorPercent() {
            return (ours - published) / published * 100;
        }
    }

    private ChannelRun() {
    }

    public static List<Row> run(LiveSession s, int[] threads, long referenceBytes, boolean read, Progress progress)
            throws InterruptedException {
        long live = s.liveBytes(referenceBytes);
        StreamModel model = new StreamModel(s.profile());
        List<Row> rows = new ArrayList<>();
        for (int n : threads) {
            progress.message(n + " threads" + (read ? ", write" : ""));
            long run = s.nextRun();
            CpuMeter cpu = CpuMeter.start(s.store().pid());
            StreamRun w = Connchk.write(s.store(), n, live, run, progress::step);
            double machine = cpu.machineBusy();
            double ours = cpu.ourBusy(0);
            failIfAny(w);
            double readMBps = Double.NaN;
            if (read) {
                progress.message(n + " threads, read");
                StreamRun r = Connchk.read(s.store(), n, live, run, progress::step);
                failIfAny(r);
                readMBps = s.referenceMBps(r.bytesPerSecond());
            }
            rows.add(new Row(n, s.referenceMBps(w.bytesPerSecond()), published(n),
                    model.equalFiles(StreamModel.Source.CHANNEL, 1, n, ReferenceSize.mb(referenceBytes)).totalMBps(),
                    readMBps, w.seconds(), machine, ours));
        }
        return rows;
    }

    static void failIfAny(StreamRun r) {
        if (!r.failures().isEmpty()) {
            throw new IllegalStateException(r.group() + ": " + r.failures().size() + " streams failed, first: " + r.failures().get(0));
        }
    }

    static double published(int threads) {
        for (int i = 0; i < Published.A_THREADS.length; i++) {
            if (Published.A_THREADS[i] == threads) {
                return Published.A_MBPS[i];
            }
        }
        return Double.NaN;
    }

    /**
     * The table of {@link #run}: {@code referenceBytes} per thread in the reference, of which
     * {@code liveBytes} were really written per thread (the profile's scale).
     */
    public static ResultTable table(List<Row> rows, long referenceBytes, long liveBytes, boolean read) {
        List<String> cols = new ArrayList<>(List.of("threads", "ours MB/s", "reference MB/s", "error %", "model MB/s", "seconds", "machine cpu %", "our cpu %"));
        if (read) {
            cols.add(4, "read MB/s");
        }
        ResultTable t = new ResultTable(String.format(Locale.ROOT, "Channel test against a simulated reference appliance, unique data, "
                + "%s MB written per thread (the reference measurement's %s MB at scale %s); every MB/s column is in the reference "
                + "appliance's MB/s (ours and model: live MB/s / scale; reference: as measured on it)", Figures.fixed(ReferenceSize.mb(liveBytes), 2),
                Figures.fixed(ReferenceSize.mb(referenceBytes), 0), Figures.significant(liveBytes / (double) referenceBytes, 3)), cols);
        for (Row r : rows) {
            List<Object> cells = new ArrayList<>(List.of(r.threads(), r.ours(), r.published(), r.errorPercent(), r.model(), r.seconds(),
                    r.machineCpu() * 100, r.ourCpu() * 100));
            if (read) {
                cells.add(4, r.readMBps());
            }
            t.add(cells.toArray());
        }
        return t;
    }

    /** The published shape: 20 threads beat 10 and 1, 30 fall below 20; and each cell within tolerance. */
    public static ShapeChecks checks(List<Row> rows, boolean cells) {
        ShapeChecks c = new ShapeChecks("Shape checks against the reference measurement");
        Map<Integer, Double> by = new LinkedHashMap<>();
        rows.forEach(r -> by.put(r.threads(), r.ours()));
        if (by.containsKey(20) && by.containsKey(10)) {
            c.greater("20 threads beat 10", by.get(20), by.get(10));
        }
        if (by.containsKey(20) && by.containsKey(1)) {
            c.greater("20 threads beat 1", by.get(20), by.get(1));
        }
        if (by.containsKey(20) && by.containsKey(30)) {
            c.greater("30 threads fall below 20", by.get(20), by.get(30));
        }
        if (cells) {
            for (Row r : rows) {
                if (!Double.isNaN(r.published())) {
                    c.close(r.threads() + " threads vs reference", r.ours(), r.published(), ShapeChecks.CELL_TOLERANCE);
                }
            }
        }
        return c;
    }

    public static void write(RunFiles files, String name, List<Row> rows, ResultTable table) {
        files.table(name, table);
        List<String> cats = rows.stream().map(r -> String.valueOf(r.threads())).toList();
        Map<String, double[]> groups = new LinkedHashMap<>();
        groups.put("ours (live)", rows.stream().mapToDouble(Row::ours).toArray());
        groups.put("reference", rows.stream().mapToDouble(Row::published).toArray());
        groups.put("model", rows.stream().mapToDouble(Row::model).toArray());
        Charts.bars(files.file(name + ".png"), table.title(), "threads", "MB/s", cats, groups);
    }
}
