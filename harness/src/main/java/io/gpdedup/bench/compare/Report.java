package io.gpdedup.bench.compare;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * Turns the observations of all rounds into markdown tables: the figures per tool (median over
 * rounds, with the range when there were several), gpdedup's own costs per step, and the issue's
 * targets as ratios.
 */
final class Report {
    static final String GPDEDUP = "gpdedup";
    static final String RESTIC = "restic";
    static final String BORG = "borg";
    /** gpdedup with the store's units in an S3 bucket (docs/s3.md), compared with {@link #GPDEDUP} on local disk. */
    static final String GPDEDUP_S3 = "gpdedup-s3";
    /** gpdedup with the store's units encrypted at rest, compared with {@link #GPDEDUP} unencrypted. */
    static final String GPDEDUP_ENCRYPTED = "gpdedup-encrypted";

    private final StreamSet streams;
    private final List<String> tools;
    private final List<Observation> observations;
    private final List<ConcurrentBackups.Result> concurrent;

    Report(StreamSet streams, List<String> tools, List<Observation> observations) {
        this(streams, tools, observations, List.of());
    }

    /** With the batches of concurrent first backups too. */
    Report(StreamSet streams, List<String> tools, List<Observation> observations, List<ConcurrentBackups.Result> concurrent) {
        this.streams = streams;
        this.tools = List.copyOf(tools);
        this.observations = List.copyOf(observations);
        this.concurrent = List.copyOf(concurrent);
    }

    /**
     * CPU seconds per 10^9 stream bytes of every process of the tool in the step: the client
     * and, for gpdedup, the store. NaN when a CPU figure is missing.
     */
    static double cpuSecondsPerGB(Observation o) {
        long client = o.result().run().cpuNanos();
        long server = o.result().serverCpuNanos();
        return client < 0 ? Double.NaN : (client + Math.max(0, server)) / 1e9 / (o.bytes() / 1e9);
    }

    /** The store's CPU seconds per GiB of stream; NaN for tools without a store. */
    static double storeCpuSecondsPerGiB(Observation o) {
        long server = o.result().serverCpuNanos();
        return server < 0 ? Double.NaN : server / 1e9 / (o.bytes() / (double) ByteSize.GIB);
    }

    /** The middle value (mean of the two middle ones for an even count); NaN for none. */
    static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] v = values.clone();
        Arrays.sort(v);
        int m = v.length / 2;
        return v.length % 2 == 1 ? v[m] : (v[m - 1] + v[m]) / 2;
    }

    double[] values(String tool, Step step, ToDoubleFunction<Observation> f) {
        return observations.stream().filter(o -> !o.failed() && o.tool().equals(tool) && o.step() == step).mapToDouble(f).toArray();
    }

    double median(String tool, Step step, ToDoubleFunction<Observation> f) {
        return median(values(tool, step, f));
    }

    double throughput(String tool, Step step) {
        return median(tool, step, Observation::mibPerSecond);
    }

    double growth(String tool, Step step) {
        return median(tool, step, o -> o.repoGrowth());
    }

    /** Bytes gpdedup put on the wire, or, without the relay, the chunk payloads it reported. */
    double sent(Step step) {
        return median(GPDEDUP, step, o -> o.result().wireBytesUp() >= 0 ? o.result().wireBytesUp() : o.result().chunkBytesSent());
    }

    /** Figures side by side: one row per step, one column per tool. */
    String figures() {
        StringBuilder s = new StringBuilder();
        s.append("| figure |");
        tools.forEach(t -> s.append(' ').append(t).append(" |"));
        s.append("\n|---|");
        tools.forEach(t -> s.append("---:|"));
        s.append('\n');
        List<StreamFile> f = streams.files();
        row(s, "first backup, MiB/s", Step.FIRST, Observation::mibPerSecond, "%.1f");
        row(s, "repository after first backup, MB", Step.FIRST, o -> o.repoGrowth() / 1e6, "%.2f");
        if (tools.contains(GPDEDUP) || tools.contains(GPDEDUP_S3)) {
            row(s, "repository after first backup once the store recompressed, MB", Step.FIRST, o -> o.settledGrowth() / 1e6, "%.2f");
            row(s, "store's recompression after the first backup, CPU s per GiB of stream", Step.FIRST, Report::quietCpuSecondsPerGiB, "%.2f");
            row(s, "store's recompression after the first backup, s", Step.FIRST,
                    o -> o.settled() == null ? Double.NaN : o.settled().wallNanos() / 1e9, "%.1f");
        }
        row(s, "repeat backup, MiB/s", Step.REPEAT, Observation::mibPerSecond, "%.1f");
        row(s, "repeat backup: bytes added, MB", Step.REPEAT, o -> o.repoGrowth() / 1e6, "%.3f");
        if (tools.contains(GPDEDUP)) {
            s.append("| repeat backup: bytes sent by the plugin, MB |");
            tools.forEach(t -> s.append(' ').append(t.equals(GPDEDUP) ? cell(values(GPDEDUP, Step.REPEAT, o -> sentOf(o) / 1e6), "%.3f") : "-")
                    .append(" |"));
            s.append('\n');
        }
        row(s, "added after " + f.get(1).label() + ", MB", Step.CLUSTERED, o -> o.repoGrowth() / 1e6, "%.2f");
        row(s, "added after " + f.get(2).label() + ", MB", Step.INSERTED, o -> o.repoGrowth() / 1e6, "%.2f");
        row(s, "added after " + f.get(3).label() + ", MB", Step.SCATTERED, o -> o.repoGrowth() / 1e6, "%.2f");
        if (tools.contains(GPDEDUP) || tools.contains(GPDEDUP_S3)) {
            for (Step step : List.of(Step.CLUSTERED, Step.INSERTED, Step.SCATTERED)) {
                row(s, "added after " + f.get(step.stream()).label() + " once the store recompressed, MB", step, o -> o.settledGrowth() / 1e6, "%.2f");
            }
        }
        row(s, "restore of the last backup, MiB/s (SHA-256 checked)", Step.RESTORE, Observation::mibPerSecond, "%.1f");
        row(s, "first backup, client CPU s", Step.FIRST, o -> o.result().run().cpuNanos() / 1e9, "%.2f");
        row(s, "repeat backup, client CPU s", Step.REPEAT, o -> o.result().run().cpuNanos() / 1e9, "%.2f");
        row(s, "restore, client CPU s", Step.RESTORE, o -> o.result().run().cpuNanos() / 1e9, "%.2f");
        row(s, "first backup, CPU s per GB (client + store)", Step.FIRST, Report::cpuSecondsPerGB, "%.2f");
        row(s, "repeat backup, CPU s per GB (client + store)", Step.REPEAT, Report::cpuSecondsPerGB, "%.2f");
        row(s, "restore, CPU s per GB (client + store)", Step.RESTORE, Report::cpuSecondsPerGB, "%.2f");
        if (tools.contains(GPDEDUP_S3)) {
            row(s, "first backup: PUTs per GiB of stream", Step.FIRST, o -> perGiB(o, "PutObject"), "%.1f");
            row(s, "repeat backup: PUTs", Step.REPEAT, o -> o.result().requests("PutObject"), "%.0f");
            row(s, "restore: GETs per GiB restored", Step.RESTORE, o -> perGiB(o, "GetObject"), "%.1f");
            // Where the bucket's extra work shows first: the store's own CPU, beside the same store on local disk.
            row(s, "first backup, store CPU s", Step.FIRST, Report::storeCpuSeconds, "%.2f");
            row(s, "restore, store CPU s", Step.RESTORE, Report::storeCpuSeconds, "%.2f");
        }
        return s.toString();
    }

    private static double quietCpuSecondsPerGiB(Observation o) {
        return o.settled() == null ? Double.NaN : o.settled().cpuNanos() / 1e9 / (o.bytes() / (double) ByteSize.GIB);
    }

    private static double perGiB(Observation o, String operation) {
        return o.result().requests(operation) / (o.bytes() / (double) ByteSize.GIB);
    }

    private static double storeCpuSeconds(Observation o) {
        return o.result().serverCpuNanos() < 0 ? Double.NaN : o.result().serverCpuNanos() / 1e9;
    }

    private static double sentOf(Observation o) {
        return o.result().wireBytesUp() >= 0 ? o.result().wireBytesUp() : o.result().chunkBytesSent();
    }

    private void row(StringBuilder s, String label, Step step, ToDoubleFunction<Observation> f, String format) {
        s.append("| ").append(label).append(" |");
        for (String t : tools) {
            s.append(' ').append(cell(values(t, step, f), format)).append(" |");
        }
        s.append('\n');
    }

    /** The median, and the range when there is more than one value; unknown values (NaN) are left out. */
    static String cell(double[] values, String format) {
        double[] v = Arrays.stream(values).filter(d -> !Double.isNaN(d)).toArray();
        if (v.length == 0) {
            return "-";
        }
        String med = String.format(Locale.ROOT, format, median(v));
        if (v.length == 1) {
            return med;
        }
        String min = String.format(Locale.ROOT, format, Arrays.stream(v).min().orElseThrow());
        String max = String.format(Locale.ROOT, format, Arrays.stream(v).max().orElseThrow());
        // Figures that do not vary (sizes, bytes sent) print once.
        return min.equals(max) ? med : med + " (" + min + "-" + max + ")";
    }

    /** gpdedup per step: plugin and store CPU, bytes on the wire, chunk payloads, growth on disk and in the store. */
    String gpdedupCosts() {
        if (!tools.contains(GPDEDUP)) {
            return "";
        }
        StringBuilder s = new StringBuilder();
        s.append("| gpdedup step | wall s | MiB/s | plugin CPU s | store CPU s | store CPU share | sent on the wire, MB | chunk payloads, MB "
                + "| data dir growth, MB | physical growth, MB | least new rows, MB |\n");
        s.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (Step step : Step.values()) {
            double[] wall = values(GPDEDUP, step, o -> o.result().run().wallNanos() / 1e9);
            if (wall.length == 0) {
                continue;
            }
            StreamFile f = streams.files().get(step.stream());
            s.append("| ").append(step.label()).append(" | ").append(cell(wall, "%.2f"))
                    .append(" | ").append(cell(values(GPDEDUP, step, Observation::mibPerSecond), "%.1f"))
                    .append(" | ").append(cell(values(GPDEDUP, step, o -> o.result().run().cpuNanos() / 1e9), "%.2f"))
                    .append(" | ").append(cell(values(GPDEDUP, step, o -> o.result().serverCpuNanos() / 1e9), "%.2f"))
                    .append(" | ").append(cell(values(GPDEDUP, step, Report::storeShare), "%.0f%%"));
            if (step.isBackup()) {
                long least = step == Step.REPEAT ? 0 : f.leastNewBytes();
                s.append(" | ").append(cell(values(GPDEDUP, step, o -> o.result().wireBytesUp() / 1e6), "%.3f"))
                        .append(" | ").append(cell(values(GPDEDUP, step, o -> o.result().chunkBytesSent() / 1e6), "%.3f"))
                        .append(" | ").append(cell(values(GPDEDUP, step, o -> o.repoGrowth() / 1e6), "%.2f"))
                        .append(" | ").append(cell(values(GPDEDUP, step, o -> o.physicalGrowth() / 1e6), "%.2f"))
                        .append(" | ").append(ByteSize.megabytes(least)).append(" |\n");
            } else {
                s.append(" | - | - | - | - | - |\n");
            }
        }
        return s.toString();
    }

    private static double storeShare(Observation o) {
        long client = o.result().run().cpuNanos();
        long server = o.result().serverCpuNanos();
        return client < 0 || server < 0 || client + server == 0 ? Double.NaN : 100.0 * server / (client + server);
    }

    /** The targets from the medians; a target whose reference tool did not run is n/a. */
    List<Target> targets() {
        List<Target> out = new ArrayList<>();
        double gFirst = throughput(GPDEDUP, Step.FIRST);
        double rFirst = throughput(RESTIC, Step.FIRST);
        double bFirst = throughput(BORG, Step.FIRST);
        double fastest = Double.isNaN(rFirst) ? bFirst : Double.isNaN(bFirst) ? rFirst : Math.max(rFirst, bFirst);
        String fastestName = Double.isNaN(rFirst) || (!Double.isNaN(bFirst) && bFirst >= rFirst) ? BORG : RESTIC;
        out.add(Target.of("first backup vs the faster of restic and borg", gFirst, fastest, Target.Rule.AT_LEAST, 2.0,
                mibs(gFirst) + " vs " + fastestName + " " + mibs(fastest)));
        double gRepeat = throughput(GPDEDUP, Step.REPEAT);
        double bRepeat = throughput(BORG, Step.REPEAT);
        out.add(Target.of("repeat backup vs borg", gRepeat, bRepeat, Target.Rule.AT_LEAST, 1.3, mibs(gRepeat) + " vs " + mibs(bRepeat)));
        double sent = sent(Step.REPEAT);
        out.add(Target.share("repeat backup: bytes sent, share of the stream", sent, streams.base().length(), Target.Rule.BELOW, 0.01,
                ByteSize.megabytes((long) (Double.isNaN(sent) ? 0 : sent)) + " MB of " + ByteSize.megabytes(streams.base().length()) + " MB"));
        // What the store holds once its own background work is done, as for the stored bytes of the first backup.
        for (Step step : List.of(Step.CLUSTERED, Step.INSERTED)) {
            double g = median(GPDEDUP, step, Observation::settledGrowth);
            double r = growth(RESTIC, step);
            out.add(Target.of("added after " + streams.files().get(step.stream()).label() + " (once the store recompressed) vs restic", g, r,
                    Target.Rule.AT_MOST, 0.3, mb(g) + " vs " + mb(r)));
        }
        double gRestore = throughput(GPDEDUP, Step.RESTORE);
        double rRestore = throughput(RESTIC, Step.RESTORE);
        double bRestore = throughput(BORG, Step.RESTORE);
        out.add(Target.of("restore vs restic dump", gRestore, rRestore, Target.Rule.AT_LEAST, 2.0, mibs(gRestore) + " vs " + mibs(rRestore)));
        out.add(Target.of("restore vs borg extract", gRestore, bRestore, Target.Rule.AT_LEAST, 1.5, mibs(gRestore) + " vs " + mibs(bRestore)));
        if (tools.contains(GPDEDUP_S3)) {
            out.addAll(s3Targets());
        }
        if (tools.contains(GPDEDUP_ENCRYPTED)) {
            for (Step step : List.of(Step.FIRST, Step.REPEAT, Step.RESTORE)) {
                double e = throughput(GPDEDUP_ENCRYPTED, step);
                double p = throughput(GPDEDUP, step);
                out.add(Target.of(step.label() + ": units encrypted at rest vs not", e, p, Target.Rule.AT_LEAST, 0.9, mibs(e) + " vs " + mibs(p)));
            }
        }
        out.add(Target.of("first backup vs borg", gFirst, bFirst, Target.Rule.AT_LEAST, 1.6, mibs(gFirst) + " vs " + mibs(bFirst)));
        double gStored = median(GPDEDUP, Step.FIRST, Observation::settledGrowth);
        double bStored = growth(BORG, Step.FIRST);
        out.add(Target.of("stored after the first backup (once the store recompressed) vs borg", gStored, bStored, Target.Rule.AT_MOST, 1.05,
                mb(gStored) + " vs " + mb(bStored)));
        double gCpu = median(GPDEDUP, Step.FIRST, Report::cpuSecondsPerGB);
        double bCpu = median(BORG, Step.FIRST, Report::cpuSecondsPerGB);
        double storeCpu = median(GPDEDUP, Step.FIRST, Report::storeCpuSecondsPerGiB);
        out.add(Target.of("first backup: CPU per GB (client + store) vs borg", gCpu, bCpu, Target.Rule.AT_MOST, 1.0,
                cpu(gCpu) + " vs " + cpu(bCpu) + String.format(Locale.ROOT, "; the store's share %.2f s per GiB (aim: <= 0.5)", storeCpu)));
        for (int n : concurrentCounts()) {
            double g = concurrentThroughput(GPDEDUP, n);
            double b = concurrentThroughput(BORG, n);
            out.add(Target.of(n + " concurrent streams vs borg, a repository each", g, b, Target.Rule.AT_LEAST, 1.2,
                    mibs(g) + " vs " + mibs(b) + " in all"));
        }
        return out;
    }

    private List<Integer> concurrentCounts() {
        return concurrent.stream().map(ConcurrentBackups.Result::streams).distinct().sorted().toList();
    }

    private double concurrentThroughput(String tool, int streams) {
        return median(concurrent.stream().filter(r -> r.failure() == null && r.tool().equals(tool) && r.streams() == streams)
                .mapToDouble(ConcurrentBackups.Result::mibPerSecond).toArray());
    }

    /** First backups of unrelated streams at once: one row per stream count and tool; empty without batches. */
    String concurrentTable() {
        if (concurrent.isEmpty()) {
            return "";
        }
        StringBuilder s = new StringBuilder("| concurrent first backups | tool | stream bytes, MB | wall s | total MiB/s | CPU s per GB (all processes) "
                + "| repository growth, MB |\n|---|---|---:|---:|---:|---:|---:|\n");
        for (ConcurrentBackups.Result r : concurrent) {
            s.append("| ").append(r.streams()).append(" streams | ").append(r.tool()).append(" | ").append(ByteSize.megabytes(r.bytes()));
            if (r.failure() != null) {
                s.append(" | FAILED: ").append(r.failure().strip().replace('\n', ' ')).append(" | | | |\n");
            } else {
                s.append(String.format(Locale.ROOT, " | %.2f | %.1f | %.2f | %.2f |%n", r.wallNanos() / 1e9, r.mibPerSecond(),
                        r.cpuSecondsPerGB(), r.repoGrowth() / 1e6));
            }
        }
        return s.toString();
    }

    private static String cpu(double seconds) {
        return Double.isNaN(seconds) ? "n/a" : String.format(Locale.ROOT, "%.2f s/GB", seconds);
    }

    /** The store on S3 against the store on local disk, same run: throughput ratios and PUTs per GiB of new data. */
    private List<Target> s3Targets() {
        List<Target> out = new ArrayList<>();
        double[][] bounds = {{0.8}, {0.9}, {0.7}};
        Step[] steps = {Step.FIRST, Step.REPEAT, Step.RESTORE};
        String[] names = {"first backup", "repeat backup", "restore"};
        for (int i = 0; i < steps.length; i++) {
            double s3 = throughput(GPDEDUP_S3, steps[i]);
            double local = throughput(GPDEDUP, steps[i]);
            out.add(Target.of(names[i] + ": store on S3 vs on local disk", s3, local, Target.Rule.AT_LEAST, bounds[i][0],
                    mibs(s3) + " vs " + mibs(local)));
        }
        double puts = median(GPDEDUP_S3, Step.FIRST, o -> perGiB(o, "PutObject"));
        out.add(new Target("first backup on S3: PUTs per GiB of new data", puts, 100, Target.Rule.AT_MOST, false,
                String.format(Locale.ROOT, "%.1f PUTs per GiB; restore: %.1f GETs per GiB", puts,
                        median(GPDEDUP_S3, Step.RESTORE, o -> perGiB(o, "GetObject")))));
        return out;
    }

    /** Scattered updates have no target; their ratio to restic is reported beside the targets. */
    String scatteredNote() {
        double g = median(GPDEDUP, Step.SCATTERED, Observation::settledGrowth);
        double r = growth(RESTIC, Step.SCATTERED);
        double b = growth(BORG, Step.SCATTERED);
        return "scattered updates (no target): gpdedup added " + mb(g) + " (once the store recompressed), restic " + mb(r) + ", borg " + mb(b)
                + (Double.isNaN(g / r) ? "" : String.format(Locale.ROOT, "; gpdedup/restic = %.2fx", g / r));
    }

    /** Steps and concurrent batches that failed, one line each; empty when none did. */
    List<String> failures() {
        List<String> out = new ArrayList<>(observations.stream().filter(Observation::failed)
                .map(o -> "round " + (o.round() + 1) + ", " + o.tool() + ", " + o.step().label() + ": " + o.failure().strip().replace('\n', ' '))
                .toList());
        concurrent.stream().filter(r -> r.failure() != null)
                .forEach(r -> out.add(r.streams() + " concurrent streams, " + r.tool() + ": " + r.failure().strip().replace('\n', ' ')));
        return out;
    }

    String targetTable() {
        StringBuilder s = new StringBuilder("| target | required | measured | figures (medians) | verdict |\n|---|---:|---:|---|---|\n");
        for (Target t : targets()) {
            s.append("| ").append(t.what()).append(" | ").append(t.required()).append(" | ").append(t.measured()).append(" | ")
                    .append(t.detail()).append(" | ").append(t.verdict()).append(" |\n");
        }
        return s.toString();
    }

    private static String mibs(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f MiB/s", v);
    }

    private static String mb(double bytes) {
        return Double.isNaN(bytes) ? "n/a" : String.format(Locale.ROOT, "%.2f MB", bytes / 1e6);
    }
}
