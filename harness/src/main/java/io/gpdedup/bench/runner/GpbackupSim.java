package io.gpdedup.bench.runner;

import io.gpdedup.bench.model.Cluster;
import io.gpdedup.bench.model.ReferenceSize;
import io.gpdedup.bench.report.Progress;
import io.gpdedup.pg.BackupToc;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * gpbackup's data phase, live and small: simulated segment hosts ({@link SimHost}) with a few
 * segments each run the real {@code gpbackup_dedup_plugin} the way gpbackup does.
 * <ul>
 * <li><b>jobs</b>: {@code jobs} workers take tables (largest first); a table is one
 *     {@code backup_data} per segment, all at once (COPY ... ON SEGMENT TO PROGRAM);</li>
 * <li><b>single-data-file</b>: one {@code backup_data} per segment for the whole backup, the
 *     tables one after the other; the segment's TOC of [start, end) offsets is then written and
 *     uploaded with {@code backup_file}, as gpbackup_helper does;</li>
 * <li>restore: {@code restore_file} of the TOC and {@code restore_data} of each stream (jobs: of
 *     each file), checked byte for byte; a filtered restore with {@code restore_data_subset}.</li>
 * </ul>
 * The database's own per-table costs (a COPY's start, a table's finish), which the model takes
 * from the seed's cluster, are waited for as gpbackup would meet them, copy-queue-size COPYs
 * ahead in single-data-file mode; without them only the plugin and the appliance cost time.
 */
final class GpbackupSim implements AutoCloseable {
    public enum Mode { JOBS, SDF }

    /**
     * @param cluster the database's per-table costs and COPY's CSV inflation; null: no per-table costs, inflation 1.35
     */
    public record Settings(Mode mode, int jobs, int copyQueue, int hosts, int segmentsPerHost, Cluster cluster) {
        int segments() {
            return hosts * segmentsPerHost;
        }

        double csvInflation() {
            return cluster == null ? 1.35 : cluster.csvInflation();
        }
    }

    /** A table: its oid and its size in the reference (bytes of table data). */
    public record Table(int oid, long bytes) {
    }

    /** One phase: how long it took and the reference table bytes it moved. */
    public record Phase(String name, double seconds, long tableBytes, int calls) {
        public double mbps() {
            return ReferenceSize.mb(tableBytes) / seconds;
        }
    }

    private final LiveSession session;
    private final Settings settings;
    private final List<Table> tables;
    private final String timestamp;
    private final Path dir;
    private final List<SimHost> hosts = new ArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "gpbackup-sim");
        t.setDaemon(true);
        return t;
    });

    GpbackupSim(LiveSession session, Settings settings, List<Table> tables) throws IOException {
        this.session = session;
        this.settings = settings;
        this.tables = List.copyOf(tables);
        long run = session.nextRun();
        this.timestamp = Isolated.timestamp(run);
        this.dir = Files.createDirectories(session.work().resolve("gpbackup-sim-" + run));
        for (int h = 0; h < settings.hosts(); h++) {
            hosts.add(SimHost.open(h, session.store(), session.dist(), dir.resolve("host" + h)));
        }
    }

    private SimHost hostOf(int segment) {
        return hosts.get(segment / settings.segmentsPerHost());
    }

    /** Live bytes of one table on one segment: its CSV share, scaled. */
    long segmentBytes(Table t) {
        return session.liveBytes(Math.round(t.bytes() * settings.csvInflation() / settings.segments()));
    }

    public long tableBytes() {
        return tables.stream().mapToLong(Table::bytes).sum();
    }

    /** Live bytes the backup streams carry in all. */
    long liveStreamBytes() {
        return tables.stream().mapToLong(this::segmentBytes).sum() * settings.segments();
    }

    private Path segmentDir(int segment) {
        return dir.resolve("seg" + segment).resolve("backups").resolve(timestamp.substring(0, 8)).resolve(timestamp);
    }

    private Path key(int segment, Table t) {
        return segmentDir(segment).resolve("gpbackup_" + segment + "_" + timestamp + (t == null ? "" : "_" + t.oid()));
    }

    private Path toc(int segment) {
        return segmentDir(segment).resolve("gpbackup_" + segment + "_" + timestamp + "_toc.yaml");
    }

    private Path err(String what) {
        return dir.resolve(what + ".err");
    }

    /** Backs up every table; a second call backs up the same data again (a repeated backup). */
    public Phase backup(String name, Progress progress) throws IOException, InterruptedException {
        for (int c = 0; c < settings.segments(); c++) {
            Files.createDirectories(segmentDir(c));
        }
        long start = System.nanoTime();
        int calls = settings.mode() == Mode.JOBS ? jobsBackup(progress) : sdfBackup(progress);
        return new Phase(name, (System.nanoTime() - start) / 1e9, tableBytes(), calls);
    }

    private int jobsBackup(Progress progress) throws IOException, InterruptedException {
        return perTablePerSegment((t, segment, n) -> hostOf(segment).call("backup_data", List.of(key(segment, t).toString()), stdin -> {
            new TableStream(t.oid(), segment).copy(stdin, n);
            progress.step(n);
        }, null, err("backup-" + segment + "-" + t.oid())));
    }

    /** One plugin call of a table on one segment, given that segment's share of the table's bytes. */
    @FunctionalInterface
    private interface SegmentCall {
        void run(Table table, int segment, long bytes) throws Exception;
    }

    /**
     * Jobs mode, as gpbackup/gprestore run it: {@code jobs} workers take tables in turn, and each
     * table is one plugin call per segment, all segments at once. Returns the number of calls.
     */
    private int perTablePerSegment(SegmentCall call) throws IOException, InterruptedException {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger calls = new AtomicInteger();
        List<Future<?>> workers = new ArrayList<>();
        for (int w = 0; w < Math.min(settings.jobs(), tables.size()); w++) {
            workers.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < tables.size(); i = next.getAndIncrement()) {
                    Table t = tables.get(i);
                    pause(settings.cluster() == null ? 0 : settings.cluster().copyStartSeconds());
                    List<Future<?>> segs = new ArrayList<>();
                    for (int c = 0; c < settings.segments(); c++) {
                        int segment = c;
                        segs.add(pool.submit(() -> {
                            call.run(t, segment, segmentBytes(t));
                            calls.incrementAndGet();
                            return null;
                        }));
                    }
                    await(segs);
                    pause(settings.cluster() == null ? 0 : settings.cluster().tableFinishSeconds());
                }
                return null;
            }));
        }
        await(workers);
        return calls.get();
    }

    private int sdfBackup(Progress progress) throws IOException, InterruptedException {
        List<Future<?>> segs = new ArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        for (int c = 0; c < settings.segments(); c++) {
            int segment = c;
            segs.add(pool.submit(() -> {
                long[][] offsets = new long[tables.size()][];
                TablePacer pacer = new TablePacer();
                hostOf(segment).call("backup_data", List.of(key(segment, null).toString()), stdin -> {
                    long at = 0;
                    for (int i = 0; i < tables.size(); i++) {
                        Table t = tables.get(i);
                        long n = segmentBytes(t);
                        pacer.tableStarts(i);
                        new TableStream(t.oid(), segment).copy(stdin, n);
                        offsets[i] = new long[] {at, at + n};
                        at += n;
                        pacer.tableDone(i);
                        progress.step(n);
                    }
                }, null, err("backup-" + segment));
                writeToc(segment, offsets);
                hostOf(segment).call("backup_file", List.of(toc(segment).toString()), null, null, err("toc-" + segment));
                calls.addAndGet(2);
                return null;
            }));
        }
        await(segs);
        return calls.get();
    }

    /** The segment TOC as gpbackup_helper writes it: dataentries, oid -> startbyte, endbyte. */
    private void writeToc(int segment, long[][] offsets) throws IOException {
        Map<Long, BackupToc.Range> entries = new LinkedHashMap<>();
        for (int i = 0; i < tables.size(); i++) {
            entries.put((long) tables.get(i).oid(), new BackupToc.Range(offsets[i][0], offsets[i][1]));
        }
        BackupToc.write(toc(segment), new BackupToc.SegmentToc(entries));
    }

    /**
     * Restores every table and checks every byte: single-data-file: the TOC with
     * {@code restore_file}, then {@code restore_data} of each segment's stream; jobs: {@code restore_data}
     * of every file, {@code jobs} tables at a time.
     */
    public Phase restore(Progress progress) throws IOException, InterruptedException {
        long start = System.nanoTime();
        AtomicInteger calls = new AtomicInteger();
        if (settings.mode() == Mode.JOBS) {
            calls.addAndGet(perTablePerSegment((t, segment, n) -> hostOf(segment).call("restore_data", List.of(key(segment, t).toString()), null,
                    out -> expect(out, new TableStream(t.oid(), segment), n, progress), err("restore-" + segment + "-" + t.oid()))));
        } else {
            List<Future<?>> segs = new ArrayList<>();
            for (int c = 0; c < settings.segments(); c++) {
                int segment = c;
                segs.add(pool.submit(() -> {
                    Map<Integer, long[]> toc = fetchToc(segment);
                    calls.incrementAndGet();
                    TablePacer pacer = new TablePacer();
                    hostOf(segment).call("restore_data", List.of(key(segment, null).toString()), null, out -> {
                        for (int i = 0; i < tables.size(); i++) {
                            Table t = tables.get(i);
                            long[] range = toc.get(t.oid());
                            pacer.tableStarts(i);
                            expect(out, new TableStream(t.oid(), segment), range[1] - range[0], progress);
                            pacer.tableDone(i);
                        }
                    }, err("restore-" + segment));
                    calls.incrementAndGet();
                    return null;
                }));
            }
            await(segs);
        }
        return new Phase("restore", (System.nanoTime() - start) / 1e9, tableBytes(), calls.get());
    }

    /**
     * A filtered restore (single-data-file only): every {@code every}-th table that has data,
     * fetched with {@code restore_data_subset} and the offsets from the TOC, checked byte for byte.
     */
    Phase restoreSubset(int every, Progress progress) throws IOException, InterruptedException {
        List<Table> chosen = new ArrayList<>();
        for (int i = 0; i < tables.size(); i++) {
            if (tables.get(i).bytes() > 0 && i % every == 0) {
                chosen.add(tables.get(i));
            }
        }
        long start = System.nanoTime();
        AtomicInteger calls = new AtomicInteger();
        List<Future<?>> segs = new ArrayList<>();
        for (int c = 0; c < settings.segments(); c++) {
            int segment = c;
            segs.add(pool.submit(() -> {
                Map<Integer, long[]> toc = fetchToc(segment);
                StringBuilder offsets = new StringBuilder().append(chosen.size());
                for (Table t : chosen) {
                    long[] r = toc.get(t.oid());
                    offsets.append(' ').append(r[0]).append(' ').append(r[1]);
                }
                Path file = dir.resolve("offsets-" + segment);
                Files.writeString(file, offsets.toString(), StandardCharsets.UTF_8);
                TablePacer pacer = new TablePacer();
                hostOf(segment).call("restore_data_subset", List.of(key(segment, null).toString(), file.toString()), null, out -> {
                    for (int i = 0; i < chosen.size(); i++) {
                        Table t = chosen.get(i);
                        long[] r = toc.get(t.oid());
                        pacer.tableStarts(i);
                        expect(out, new TableStream(t.oid(), segment), r[1] - r[0], progress);
                        pacer.tableDone(i);
                    }
                }, err("subset-" + segment));
                calls.addAndGet(2);
                return null;
            }));
        }
        await(segs);
        long bytes = chosen.stream().mapToLong(Table::bytes).sum();
        return new Phase("filtered restore (" + chosen.size() + " of " + tables.size() + " tables)", (System.nanoTime() - start) / 1e9,
                bytes, calls.get());
    }

    private Map<Integer, long[]> fetchToc(int segment) throws IOException, InterruptedException {
        Path local = toc(segment);
        Files.deleteIfExists(local);
        hostOf(segment).call("restore_file", List.of(local.toString()), null, null, err("toc-restore-" + segment));
        Map<Integer, long[]> out = new LinkedHashMap<>();
        BackupToc.read(local, BackupToc.SegmentToc.class).dataEntries()
                .forEach((oid, range) -> out.put(Math.toIntExact(oid), new long[] {range.start(), range.end()}));
        return out;
    }

    /** Reads {@code n} bytes of {@code in} and fails unless they are the table stream's next {@code n}. */
    private static void expect(InputStream in, TableStream expected, long n, Progress progress) throws IOException {
        byte[] got = new byte[64 * 1024];
        ByteArrayOutputStream want = new ByteArrayOutputStream(got.length);
        long left = n;
        while (left > 0) {
            int k = (int) Math.min(got.length, left);
            int r = in.readNBytes(got, 0, k);
            if (r < k) {
                throw new IOException("restore ended " + (left - r) + " bytes early");
            }
            want.reset();
            expected.copy(want, k);
            if (!Arrays.equals(got, 0, k, want.toByteArray(), 0, k)) {
                throw new IOException("restored bytes differ from what was backed up");
            }
            left -= k;
            progress.step(k);
        }
    }

    /**
     * The database side of a single-data-file stream: COPY i may start once the table
     * copy-queue-size places before it is done (its queue slot frees) and takes the cluster's COPY
     * start; the helper takes tables in order, each costing the cluster's table finish.
     */
    private final class TablePacer {
        private final long[] done = new long[tables.size()];
        private final long t0 = System.nanoTime();

        void tableStarts(int i) throws InterruptedException {
            Cluster c = settings.cluster();
            if (c == null) {
                return;
            }
            int q = Math.max(1, settings.copyQueue());
            long issued = i < q ? t0 : done[i - q];
            long ready = issued + (long) (c.copyStartSeconds() * 1e9);
            sleepUntil(ready);
            pause(c.tableFinishSeconds());
        }

        void tableDone(int i) {
            done[i] = System.nanoTime();
        }
    }

    private static void pause(double seconds) throws InterruptedException {
        if (seconds > 0) {
            sleepUntil(System.nanoTime() + (long) (seconds * 1e9));
        }
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        long left;
        while ((left = nanos - System.nanoTime()) > 0) {
            TimeUnit.NANOSECONDS.sleep(left);
        }
    }

    private static void await(List<Future<?>> futures) throws IOException, InterruptedException {
        IOException first = null;
        for (Future<?> f : futures) {
            try {
                f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                Throwable c = e.getCause();
                if (first == null) {
                    first = c instanceof IOException io ? io : new IOException(c.toString(), c);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }

    /** CPU seconds the hosts' plugin agents have used so far. */
    double agentCpuSeconds() {
        return hosts.stream().mapToDouble(SimHost::agentCpuSeconds).sum();
    }

    @Override
    public void close() throws IOException {
        pool.shutdownNow();
        IOException first = null;
        for (SimHost h : hosts) {
            try {
                h.close();
            } catch (IOException e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
