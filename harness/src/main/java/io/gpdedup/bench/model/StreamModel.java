package io.gpdedup.bench.model;

import io.gpdedup.appliance.ApplianceProfile;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Streams of unique data from one or more client hosts into the appliance, as a fluid model
 * (tables A to C): rates are constant between events (a stream finishing) and recomputed at each.
 * A stream's rate is the max-min fair share under its own cap, its host's read cap and the
 * appliance's capacity for the streams now open, except that each host's client library keeps
 * the share it gave a stream when it sized its pool ({@link ApplianceProfile#pooledRateMBps}).
 */
public final class StreamModel {
    /** What feeds the streams. */
    public enum Source {
        /** A synthetic channel test: no plugin work, no disk reads. */
        CHANNEL,
        /** The plugin reading files from the host's disks. */
        PLUGIN
    }

    /** The outcome: average MB/s overall and per host, and per-second rates per host. */
    public record Result(double seconds, double totalMBps, double[] hostMBps, double[][] hostTimeline) {
    }

    private final ApplianceProfile profile;

    public StreamModel(ApplianceProfile profile) {
        this.profile = profile;
    }

    /** Each host writes files of the given sizes (MB), all started at once. */
    public Result run(Source source, double[][] fileMBPerHost) {
        int hosts = fileMBPerHost.length;
        List<Flow> flows = new ArrayList<>();
        for (int h = 0; h < hosts; h++) {
            for (double mb : fileMBPerHost[h]) {
                flows.add(new Flow(h, fileMBPerHost[h].length, mb));
            }
        }
        double total = flows.stream().mapToDouble(f -> f.left).sum();
        double[] hostBytes = new double[hosts];
        double[] hostEnd = new double[hosts];
        List<double[]> timeline = new ArrayList<>();
        double[] bucket = new double[hosts];
        double bucketEnd = 1;
        double t = 0;
        boolean first = true;
        while (flows.stream().anyMatch(f -> f.left > 0)) {
            List<Flow> active = flows.stream().filter(f -> f.left > 0).toList();
            double[] fair = fairShares(source, active, hosts);
            for (int i = 0; i < active.size(); i++) {
                Flow f = active.get(i);
                if (first) {
                    f.startShare = fair[i];
                }
                f.rate = profile.pooledRateMBps(f.startShare, fair[i]);
            }
            first = false;
            double dt = active.stream().mapToDouble(f -> f.left / f.rate).min().orElseThrow();
            // per-second buckets for the timeline
            double end = t + dt;
            while (t < end) {
                double step = Math.min(end, bucketEnd) - t;
                for (Flow f : active) {
                    bucket[f.host] += f.rate * step;
                }
                t += step;
                if (t >= bucketEnd - 1e-12) {
                    timeline.add(bucket.clone());
                    Arrays.fill(bucket, 0);
                    bucketEnd += 1;
                }
            }
            for (Flow f : active) {
                double moved = Math.min(f.left, f.rate * dt);
                f.left -= moved;
                hostBytes[f.host] += moved;
                if (f.left <= 1e-9) {
                    f.left = 0;
                    hostEnd[f.host] = Math.max(hostEnd[f.host], t);
                }
            }
        }
        if (Arrays.stream(bucket).sum() > 0) {
            timeline.add(bucket.clone());
        }
        double[] hostMBps = new double[hosts];
        for (int h = 0; h < hosts; h++) {
            hostMBps[h] = hostEnd[h] > 0 ? hostBytes[h] / hostEnd[h] : 0;
        }
        double[][] tl = new double[hosts][timeline.size()];
        for (int s = 0; s < timeline.size(); s++) {
            for (int h = 0; h < hosts; h++) {
                tl[h][s] = timeline.get(s)[h];
            }
        }
        return new Result(t, total / t, hostMBps, tl);
    }

    /** {@code threads} equal files of {@code fileMB} on one host per entry of {@code hosts}. */
    public Result equalFiles(Source source, int hosts, int threads, double fileMB) {
        double[][] files = new double[hosts][threads];
        for (double[] f : files) {
            Arrays.fill(f, fileMB);
        }
        return run(source, files);
    }

    /**
     * The rate of the last {@code left} of {@code threads} streams on one host once the others
     * have finished (table B's tail: two files left of ten).
     */
    public double tailMBps(int threads, int left) {
        double[][] files = new double[1][threads];
        for (int i = 0; i < threads; i++) {
            // the last `left` files are long enough to outlive the rest
            files[0][i] = i < threads - left ? 1000 : 1_000_000;
        }
        Result r = run(Source.PLUGIN, files);
        // late in the run only the long files remain
        double[] line = r.hostTimeline()[0];
        return line[line.length - 2];
    }

    private double[] fairShares(Source source, List<Flow> active, int hosts) {
        int n = active.size();
        double[] cap = new double[n];
        for (int i = 0; i < n; i++) {
            Flow f = active.get(i);
            cap[i] = source == Source.PLUGIN ? profile.pluginStreamCapMBps(f.pool) : profile.streamCapMBps(f.pool);
        }
        // constraints: each host's read cap (plugin only), the appliance's capacity for n streams
        List<int[]> groups = new ArrayList<>();
        List<Double> capacity = new ArrayList<>();
        if (source == Source.PLUGIN) {
            for (int h = 0; h < hosts; h++) {
                final int host = h;
                int[] members = java.util.stream.IntStream.range(0, n).filter(i -> active.get(i).host == host).toArray();
                if (members.length > 0) {
                    groups.add(members);
                    capacity.add(profile.hostReadCapMBps());
                }
            }
        }
        groups.add(java.util.stream.IntStream.range(0, n).toArray());
        capacity.add(profile.aggregateCapMBps(n));
        return waterFill(cap, groups, capacity);
    }

    /** Max-min fair rates under per-flow caps and group capacities (progressive filling). */
    static double[] waterFill(double[] cap, List<int[]> groups, List<Double> capacity) {
        int n = cap.length;
        double[] rate = new double[n];
        boolean[] frozen = new boolean[n];
        double[] left = capacity.stream().mapToDouble(Double::doubleValue).toArray();
        while (true) {
            int open = 0;
            for (boolean fz : frozen) {
                open += fz ? 0 : 1;
            }
            if (open == 0) {
                return rate;
            }
            double inc = Double.MAX_VALUE;
            for (int i = 0; i < n; i++) {
                if (!frozen[i]) {
                    inc = Math.min(inc, cap[i] - rate[i]);
                }
            }
            for (int g = 0; g < groups.size(); g++) {
                int members = 0;
                for (int i : groups.get(g)) {
                    members += frozen[i] ? 0 : 1;
                }
                if (members > 0) {
                    inc = Math.min(inc, left[g] / members);
                }
            }
            for (int i = 0; i < n; i++) {
                if (!frozen[i]) {
                    rate[i] += inc;
                }
            }
            for (int g = 0; g < groups.size(); g++) {
                for (int i : groups.get(g)) {
                    if (!frozen[i]) {
                        left[g] -= inc;
                    }
                }
            }
            for (int i = 0; i < n; i++) {
                if (!frozen[i] && rate[i] >= cap[i] - 1e-9) {
                    frozen[i] = true;
                }
            }
            for (int g = 0; g < groups.size(); g++) {
                if (left[g] <= 1e-9) {
                    for (int i : groups.get(g)) {
                        frozen[i] = true;
                    }
                }
            }
        }
    }

    private static final class Flow {
        final int host;
        /** Streams the host's library session opened with: what sized its pool. */
        final int pool;
        double left;
        double startShare;
        double rate;

        Flow(int host, int pool, double mb) {
            this.host = host;
            this.pool = pool;
            this.left = mb;
        }
    }
}
