package io.gpdedup.bench.model;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.model.Published.Mode;
import io.gpdedup.bench.model.Published.Scenario;
import io.gpdedup.bench.model.Published.Target;
import io.gpdedup.bench.model.TableMix.Table;
import java.util.List;
import java.util.PriorityQueue;

/**
 * gpbackup's data phase (and gprestore's) at cluster scale, as a discrete-event simulation
 * (tables D to F). Every table is spread evenly over all segments, so the segments move in step
 * and one segment's events stand for all of them; shared resources (the appliance's write,
 * lookup and read capacity, its namespace, a host's disk) are divided by the number of streams
 * that use them at that moment.
 *
 * <ul>
 * <li><b>Jobs mode</b>: {@code jobs} workers take tables largest first. A table costs its COPY's
 *     start, then on every segment one file: a create (latency, then the appliance's serial
 *     namespace, where all segments' creates queue), the data, a close (likewise), and the
 *     table's finish.</li>
 * <li><b>Single-data-file</b>: one stream per segment for the whole backup. COPYs are started up
 *     to {@code copy-queue-size} tables ahead; the segment's helper takes tables in order, each
 *     costing its finish, its data, and on the appliance one request round trip at its end.</li>
 * </ul>
 * Table data is read from memory: the database (140 GB per host) fits in the hosts' page cache
 * and the runs followed each other, so table B's disk read cap does not apply here.
 */
public final class BackupModel {
    /** A simulated run: seconds of wall time and MB/s of table data. */
    public record Result(double seconds, double mbps, double tableBytes) {
        public double minutes() {
            return seconds / 60;
        }
    }

    private final ApplianceProfile profile;
    private final Cluster cluster;
    private final TableMix mix;

    public BackupModel(ApplianceProfile profile, Cluster cluster, TableMix mix) {
        this.profile = profile;
        this.cluster = cluster;
        this.mix = mix;
    }

    public Result run(Scenario run) {
        List<Table> tables = mix.select(run.tables());
        double seconds = run.mode() == Mode.JOBS
                ? jobs(tables, run.jobs(), run.target(), run.repeat())
                : singleDataFile(tables, run.copyQueue(), run.target(), run.repeat(), run.restore());
        double bytes = TableMix.totalBytes(tables);
        return new Result(seconds, bytes / ApplianceProfile.MB / seconds, bytes);
    }

    /** CSV MB one segment carries for a table. */
    private double segmentMB(Table t) {
        return t.bytes() * cluster.csvInflation() / ApplianceProfile.MB / cluster.segments();
    }

    /**
     * MB/s of CSV one segment's stream moves when {@code streams} streams are moving data at once
     * (spread evenly over the hosts).
     */
    double segmentRateMBps(Target target, boolean repeat, boolean restore, int streams) {
        int perHost = Math.max(1, (int) Math.ceil(streams / (double) cluster.hosts()));
        if (target != Target.APPLIANCE) {
            // The local file system: one host's disks take its segments' writes.
            return profile.hostReadCapMBps() / perHost;
        }
        double lookup = profile.lookupCapacityMBps() / streams;
        if (restore) {
            double physical = profile.aggregateReadCapMBps(streams) / streams;
            return Math.min(profile.streamReadCapMBps(), physical * cluster.csvCompression());
        }
        if (repeat) {
            // Duplicates: the plugin still chunks and fingerprints, the appliance looks up; no transfer.
            return Math.min(1 / profile.clientCostSecondsPerMB(), lookup);
        }
        // Each segment's plugin is its own library session with one connection.
        double physical = profile.aggregateCapMBps(streams) / streams;
        return Math.min(Math.min(profile.pluginStreamCapMBps(1), physical * cluster.csvCompression()), lookup);
    }

    /** Seconds for the single-data-file layout: one helper stream per segment. */
    double singleDataFile(List<Table> tables, int copyQueue, Target target, boolean repeat, boolean restore) {
        int n = tables.size();
        int q = Math.max(1, copyQueue);
        double rate = segmentRateMBps(target, repeat, restore, cluster.segments());
        double tail = target == Target.APPLIANCE ? seconds(profile.requestLatency()) : 0;
        double[] done = new double[n];
        double prev = 0;
        for (int i = 0; i < n; i++) {
            Table t = tables.get(i);
            // COPY i is started when the table q places earlier is done: its queue slot frees.
            double issued = i < q ? 0 : done[i - q];
            double ready = issued + cluster.copyStartSeconds();
            double start = Math.max(prev, ready);
            double data = segmentMB(t) / rate + (t.bytes() > 0 ? tail : 0);
            done[i] = start + cluster.tableFinishSeconds() + data;
            prev = done[i];
        }
        return n == 0 ? 0 : done[n - 1];
    }

    /** Seconds for jobs mode: {@code jobs} workers, one file per table per segment. */
    double jobs(List<Table> tables, int jobs, Target target, boolean repeat) {
        boolean appliance = target == Target.APPLIANCE;
        int segments = cluster.segments();
        double nsBatch = segments * seconds(profile.namespaceOpCost());
        double tail = appliance ? seconds(profile.requestLatency()) : 0;
        PriorityQueue<Event> events = new PriorityQueue<>();
        int next = 0;
        for (int w = 0; w < Math.min(jobs, tables.size()); w++) {
            events.add(new Event(0, w, Phase.START, tables.get(next++)));
        }
        double namespaceFree = 0;
        int moving = 0;
        double end = 0;
        while (!events.isEmpty()) {
            Event e = events.poll();
            double t = e.time;
            switch (e.phase) {
                case START -> {
                    double ready = t + cluster.copyStartSeconds();
                    events.add(appliance
                            ? new Event(ready + seconds(profile.fileOpenLatency()), e.worker, Phase.CREATE, e.table)
                            : new Event(ready, e.worker, Phase.DATA, e.table));
                }
                case CREATE, CLOSE -> {
                    // every segment's create (or close) of this table queues at the namespace
                    namespaceFree = Math.max(namespaceFree, t) + nsBatch;
                    events.add(new Event(namespaceFree, e.worker, e.phase == Phase.CREATE ? Phase.DATA : Phase.FINISH, e.table));
                }
                case DATA -> {
                    moving++;
                    double rate = segmentRateMBps(target, repeat, false, moving * segments);
                    double data = segmentMB(e.table) / rate + (e.table.bytes() > 0 ? tail : 0);
                    events.add(new Event(t + data, e.worker, Phase.DATA_DONE, e.table));
                }
                case DATA_DONE -> {
                    moving--;
                    events.add(appliance
                            ? new Event(t + seconds(profile.fileCloseLatency()), e.worker, Phase.CLOSE, e.table)
                            : new Event(t, e.worker, Phase.FINISH, e.table));
                }
                case FINISH -> {
                    double done = t + cluster.tableFinishSeconds();
                    end = Math.max(end, done);
                    if (next < tables.size()) {
                        events.add(new Event(done, e.worker, Phase.START, tables.get(next++)));
                    }
                }
                default -> throw new IllegalStateException(e.phase.toString());
            }
        }
        return end;
    }

    private static double seconds(java.time.Duration d) {
        return d.toNanos() / 1e9;
    }

    private enum Phase { START, CREATE, DATA, DATA_DONE, CLOSE, FINISH }

    private record Event(double time, int worker, Phase phase, Table table) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Double.compare(time, o.time);
            return c != 0 ? c : Integer.compare(worker, o.worker);
        }
    }
}
