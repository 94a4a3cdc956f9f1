package io.gpdedup.bench.runner;

import io.gpdedup.bench.model.Published;
import io.gpdedup.bench.model.ReferenceSize;
import io.gpdedup.bench.model.StreamModel;
import io.gpdedup.bench.report.Charts;
import io.gpdedup.bench.report.Progress;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * Tables B and C live: the isolated plugin test for each (hosts, threads) pair against the store
 * of a {@link LiveSession}, per host and in total, in reference MB/s next to the published figures
 * and the model's, with the store-side per-second timeline of every host.
 */
final class IsolatedRun {
    /** Per-second buckets of the timelines. */
    static final int SECOND_MS = 1000;

    /** One (hosts, threads) run, in reference MB/s. */
    /**
     * @param timelineMBps per host, MB/s per second let through by the store's throttle
     * @param readTimelineMBps per host, MB/s per second read from the host's "disk" into its plugin calls
     */
    public record Run(int hosts, int threads, double totalMBps, double[] hostMBps, double[] publishedHost, double publishedTotal,
            double[] modelHost, double modelTotal, double[][] timelineMBps, double[][] readTimelineMBps, double seconds,
            double machineCpu, double ourCpu) {
    }

    /** Table B's tail: the rate of the last files once the others have finished. */
    record Tail(int files, int left, double ours, double published, double model, double fairShare) {
    }

    private IsolatedRun() {
    }

    /** Every pair of {@code hosts} x {@code threads}; each host backs up {@code threads} files of {@code referenceFileBytes}. */
    public static List<Run> run(LiveSession s, int[] hosts, int[] threads, long referenceFileBytes, Progress progress)
            throws IOException, InterruptedException {
        StreamModel model = new StreamModel(s.profile());
        double hostCap = s.profile().liveBytesPerSecond(s.profile().hostReadCapMBps());
        List<Run> runs = new ArrayList<>();
        for (int h : hosts) {
            for (int t : threads) {
                progress.message(h + " hosts x " + t + " files");
                long fileRef = referenceFileBytes;
                long fileLive = s.liveBytes(fileRef);
                long[] sizes = new long[t];
                java.util.Arrays.fill(sizes, fileLive);
                Isolated.Result r = Isolated.run(s.store(), s.dist(), s.work(), h, sizes, hostCap, s.nextRun(), progress::step);
                ChannelRun.failIfAny(r.run());
                double[] hostMBps = new double[h];
                double[][] timeline = new double[h][];
                double[][] reads = new double[h][];
                for (int i = 0; i < h; i++) {
                    hostMBps[i] = s.referenceMBps(r.storeBytesPerSecond(i));
                    timeline[i] = perSecond(s, r.storeByHost()[i]);
                    reads[i] = r.feedByHost()[i] == null ? new double[0] : perSecond(s, r.feedByHost()[i]);
                }
                StreamModel.Result m = model.equalFiles(StreamModel.Source.PLUGIN, h, t, ReferenceSize.mb(fileRef));
                runs.add(new Run(h, t, s.referenceMBps(r.storeBytesPerSecond()), hostMBps, publishedHost(h, t), publishedTotal(h, t),
                        m.hostMBps(), m.totalMBps(), timeline, reads, r.run().seconds(), r.machineCpu(), r.ourCpu()));
            }
        }
        return runs;
    }

    private static double[] perSecond(LiveSession s, Timeline t) {
        double[] line = t.ratePerSecond(SECOND_MS);
        for (int k = 0; k < line.length; k++) {
            line[k] = s.referenceMBps(line[k]);
        }
        return line;
    }

    /**
     * Table B's tail, live: one host, {@code files} files of which {@code left} are three times as
     * long; once the short ones have finished, the long ones' rate at the store (from a second after
     * the last short file ended until half a second before the first long one ends). A pooled
     * stream gets back only part of what finished streams freed, so this stays below
     * {@code left} x the plugin stream's cap.
     */
    public static Tail tail(LiveSession s, int files, int left, long referenceShortBytes, Progress progress)
            throws IOException, InterruptedException {
        progress.message("tail: " + left + " of " + files + " files left");
        long[] sizes = new long[files];
        for (int i = 0; i < files; i++) {
            sizes[i] = s.liveBytes(i < files - left ? referenceShortBytes : 3 * referenceShortBytes);
        }
        double hostCap = s.profile().liveBytesPerSecond(s.profile().hostReadCapMBps());
        Isolated.Result r = Isolated.run(s.store(), s.dist(), s.work(), 1, sizes, hostCap, s.nextRun(), progress::step);
        ChannelRun.failIfAny(r.run());
        long lastShort = 0;
        long firstLong = Long.MAX_VALUE;
        for (StreamRun.Stream st : r.run().streams()) {
            int file = Integer.parseInt(st.name().substring(st.name().lastIndexOf("file") + 4));
            if (file < files - left) {
                lastShort = Math.max(lastShort, st.endMs());
            } else {
                firstLong = Math.min(firstLong, st.endMs());
            }
        }
        long from = lastShort + 1000;
        long to = firstLong - 500;
        Timeline t = r.storeByHost()[0];
        long[] b = t.buckets();
        long bytes = 0;
        for (int i = 0; i < b.length; i++) {
            long at = t.startMs() + (long) i * t.bucketMs();
            if (at >= from && at + t.bucketMs() <= to) {
                bytes += b[i];
            }
        }
        long span = (to - from) / t.bucketMs() * t.bucketMs();
        double ours = span <= 0 ? Double.NaN : s.referenceMBps(bytes / (span / 1000.0));
        double model = new StreamModel(s.profile()).tailMBps(files, left);
        return new Tail(files, left, ours, Published.B_TWO_LEFT_MBPS, model, left * s.profile().pluginStreamCapMBps(files));
    }

    static ResultTable tailTable(Tail t) {
        ResultTable table = new ResultTable("Plugin tail (live): " + t.left() + " of " + t.files() + " files left, reference MB/s at the store",
                "files left", "ours MB/s", "reference MB/s", "error %", "model MB/s", t.left() + " x plugin stream cap");
        table.add(t.left(), t.ours(), t.published(), error(t.ours(), t.published()), t.model(), t.fairShare());
        return table;
    }

    /** The published per-host figures for this pair, or null: table B for one host, table C for 10 threads. */
    static double[] publishedHost(int hosts, int threads) {
        if (hosts == 1) {
            double total = publishedTotal(hosts, threads);
            return Double.isNaN(total) ? null : new double[] {total};
        }
        if (threads == 10) {
            for (int i = 0; i < Published.C_HOSTS.length; i++) {
                if (Published.C_HOSTS[i] == hosts) {
                    return Published.C_PER_HOST[i];
                }
            }
        }
        return null;
    }

    static double publishedTotal(int hosts, int threads) {
        if (hosts == 1) {
            for (int i = 0; i < Published.B_THREADS.length; i++) {
                if (Published.B_THREADS[i] == threads) {
                    return Published.B_MBPS[i];
                }
            }
            return Double.NaN;
        }
        if (threads == 10) {
            for (int i = 0; i < Published.C_HOSTS.length; i++) {
                if (Published.C_HOSTS[i] == hosts) {
                    return Published.C_TOTAL[i];
                }
            }
        }
        return Double.NaN;
    }

    private static double error(double ours, double published) {
        return (ours - published) / published * 100;
    }

    /** One row per host of every run, then the run's total (B: one host; C: 10 threads per host). */
    public static ResultTable table(List<Run> runs, long referenceFileBytes) {
        ResultTable t = new ResultTable("Plugin test (live), real gpbackup_dedup_plugin, random data, N files of "
                + ReferenceSize.mb(referenceFileBytes) / 1024 + " GB per host, reference MB/s",
                "hosts", "threads", "host", "ours MB/s", "reference MB/s", "error %", "model MB/s", "seconds", "machine cpu %", "our cpu %");
        for (Run r : runs) {
            if (r.hosts() > 1) {
                for (int h = 0; h < r.hosts(); h++) {
                    double pub = r.publishedHost() == null ? Double.NaN : r.publishedHost()[h];
                    t.add(r.hosts(), r.threads(), "host" + (h + 1), r.hostMBps()[h], pub, error(r.hostMBps()[h], pub), r.modelHost()[h],
                            null, null, null);
                }
            }
            t.add(r.hosts(), r.threads(), "total", r.totalMBps(), r.publishedTotal(), error(r.totalMBps(), r.publishedTotal()),
                    r.modelTotal(), r.seconds(), r.machineCpu() * 100, r.ourCpu() * 100);
        }
        return t;
    }

    /**
     * The published shapes: 10 and 20 files beat one and stay at the host's read cap (20 no better
     * than 10); from 4 hosts on the total stays (8 hosts share what 4 share), evenly per host; and
     * each published cell within tolerance when {@code cells}.
     */
    public static ShapeChecks checks(List<Run> runs, boolean cells) {
        ShapeChecks c = new ShapeChecks("Plugin shape checks against the reference measurement");
        Run b1 = find(runs, 1, 1);
        Run b10 = find(runs, 1, 10);
        Run b20 = find(runs, 1, 20);
        if (b1 != null && b10 != null) {
            c.greater("1 host: 10 files beat 1", b10.totalMBps(), b1.totalMBps());
        }
        if (b10 != null && b20 != null) {
            c.close("1 host: 20 files no better than 10 (host read cap)", b20.totalMBps(), b10.totalMBps(), 0.10);
        }
        Run c4 = find(runs, 4, 10);
        Run c8 = find(runs, 8, 10);
        if (c4 != null && c8 != null) {
            c.close("8 hosts share the same total as 4", c8.totalMBps(), c4.totalMBps(), 0.10);
        }
        for (Run r : runs) {
            if (r.hosts() > 1) {
                double min = java.util.Arrays.stream(r.hostMBps()).min().orElse(0);
                double max = java.util.Arrays.stream(r.hostMBps()).max().orElse(0);
                // Short runs (cells == false) carry more of the plugin agents' warm-up: a looser bound.
                c.close(r.hosts() + " hosts: shared evenly (slowest vs fastest host)", min, max, cells ? 0.15 : 0.25);
            }
        }
        if (cells) {
            for (Run r : runs) {
                if (!Double.isNaN(r.publishedTotal())) {
                    c.close(r.hosts() + " hosts x " + r.threads() + " files: total vs reference", r.totalMBps(), r.publishedTotal(),
                            ShapeChecks.CELL_TOLERANCE);
                }
                if (r.hosts() > 1 && r.publishedHost() != null) {
                    for (int h = 0; h < r.hosts(); h++) {
                        c.close(r.hosts() + " hosts: host" + (h + 1) + " vs reference", r.hostMBps()[h], r.publishedHost()[h],
                                ShapeChecks.CELL_TOLERANCE);
                    }
                }
            }
        }
        return c;
    }

    static Run find(List<Run> runs, int hosts, int threads) {
        return runs.stream().filter(r -> r.hosts() == hosts && r.threads() == threads).findFirst().orElse(null);
    }

    /** The table, and per run a timeline CSV and chart (MB/s per host per second, store side). */
    public static void write(RunFiles files, String name, List<Run> runs, ResultTable table) {
        files.table(name, table);
        for (Run r : runs) {
            String base = name + "-h" + r.hosts() + "-t" + r.threads() + "-timeline";
            int len = 0;
            for (double[] line : r.timelineMBps()) {
                len = Math.max(len, line.length);
            }
            List<String> cols = new ArrayList<>(List.of("second"));
            for (int h = 0; h < r.hosts(); h++) {
                cols.add("host" + (h + 1) + " MB/s");
            }
            cols.add("total MB/s");
            cols.add("read total MB/s");
            ResultTable tl = new ResultTable(r.hosts() + " hosts x " + r.threads() + " files: MB/s per second at the store", cols);
            List<Charts.Series> series = new ArrayList<>();
            double[] x = new double[len];
            double[] total = new double[len];
            for (int k = 0; k < len; k++) {
                x[k] = k;
            }
            for (int h = 0; h < r.hosts(); h++) {
                double[] y = java.util.Arrays.copyOf(r.timelineMBps()[h], len);
                for (int k = 0; k < len; k++) {
                    total[k] += y[k];
                }
                series.add(new Charts.Series("host" + (h + 1), x, y));
            }
            double[] read = new double[len];
            for (double[] line : r.readTimelineMBps()) {
                for (int k = 0; k < Math.min(len, line.length); k++) {
                    read[k] += line[k];
                }
            }
            if (r.hosts() > 1) {
                series.add(new Charts.Series("total", x, total));
            }
            // Its own axis: all hosts' disk reads dwarf one host's send rate and would flatten those lines.
            series.add(new Charts.Series("read from disk (all hosts)", x, read, "read from disk, MB/s (reference)"));
            for (int k = 0; k < len; k++) {
                List<Object> row = new ArrayList<>();
                row.add(k);
                for (int h = 0; h < r.hosts(); h++) {
                    row.add(k < r.timelineMBps()[h].length ? r.timelineMBps()[h][k] : 0.0);
                }
                row.add(total[k]);
                row.add(read[k]);
                tl.add(row.toArray());
            }
            files.csv(base, tl);
            Charts.line(files.file(base + ".png"), tl.title(), "second", "MB/s (reference)", series);
        }
    }
}
