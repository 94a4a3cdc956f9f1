package io.gpdedup.bench.runner;

import io.gpdedup.bench.compare.ByteSize;
import io.gpdedup.bench.report.Charts;
import io.gpdedup.bench.report.Progress;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import io.gpdedup.client.BackupSession;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.dedup.pipeline.BackupPipeline;
import io.gpdedup.dedup.pipeline.MemoryBudget;
import io.gpdedup.dedup.pipeline.PipelineSettings;
import io.gpdedup.dedup.pipeline.RestorePipeline;
import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;
import java.util.function.LongConsumer;

/**
 * The channel test against a real gpdedup-store, through the dedup plugin's own client and
 * pipeline (FastCDC chunks, SHA-256 fingerprints, "which chunks are missing?", zstd level 1,
 * upload; the restore pipeline checking every chunk's SHA-256): N threads, each one connection and
 * one object of unique data, as N plugin calls of one host agent would (one worker pool, one
 * memory window). Every object goes under one prefix of the unit,
 * {@code gpdedup-bench/connchk-<random>/}, which {@link #close} deletes, also should this JVM be
 * stopped first.
 */
final class StoreCheck implements AutoCloseable {
    /** One pass of N parallel streams: its bytes per second and the client's CPU share (0..1) meanwhile. */
    public record Pass(double bytesPerSecond, double seconds, double clientCpu) {
    }

    /** A thread count's write, repeat (NaN when not run) and verified read. */
    public record Row(int threads, Pass write, Pass repeat, Pass read) {
    }

    /** Many small objects written in parallel: files per second, and milliseconds per file in a thread. */
    record FileRate(int threads, int files, double filesPerSecond, double millisPerFile) {
    }

    private final ClientSettings settings;
    private final String prefix;
    private final long seed = new SecureRandom().nextLong();
    private final ExecutorService workers;
    private final PipelineSettings pipeline;
    private final Thread onExit;
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong deleted = new AtomicLong();

    StoreCheck(ClientSettings settings) {
        this.settings = settings;
        byte[] id = new byte[4];
        new SecureRandom().nextBytes(id);
        this.prefix = "gpdedup-bench/connchk-" + HexFormat.of().formatHex(id) + "/";
        this.workers = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), r -> {
            Thread t = new Thread(r, "storecheck-worker");
            t.setDaemon(true);
            return t;
        });
        // the plugin's defaults: its chunking, zstd level 1, one memory budget for all streams of the process
        this.pipeline = PipelineSettings.defaults(ChunkerParams.DEFAULT, ChunkCodec.of(Codec.ZSTD, 1),
                MemoryBudget.ofHeap(Runtime.getRuntime().maxMemory()), workers);
        this.onExit = new Thread(this::deleteAll, "storecheck-cleanup");
        Runtime.getRuntime().addShutdownHook(onExit);
    }


    /** One stream through the backup pipeline, admitted to the memory budget as the plugin admits a call. */
    private BackupPipeline.Result storeAdmitted(InputStream in, BackupSession session) throws java.io.IOException {
        try (MemoryBudget.Stream stream = pipeline.admitBackup()) {
            return new BackupPipeline(pipeline).store(in, session, stream);
        }
    }

    /** {@link #run} for each thread count in turn, telling {@code progress} which. */
    List<Row> runAll(int[] threads, long bytesPerThread, boolean repeat, Progress progress) throws InterruptedException {
        List<Row> rows = new ArrayList<>();
        for (int n : threads) {
            progress.message(n + " threads");
            rows.add(run(n, bytesPerThread, repeat, progress::step));
        }
        return rows;
    }

    /**
     * {@link #close}, and when the run did not get to its end, says on {@code out} what was
     * deleted (the table that would have said it is not printed).
     */
    public void finish(boolean completed, PrintStream out) {
        close();
        if (!completed) {
            out.println(deletedLine());
        }
    }

    /**
     * Writes {@code bytesPerThread} of unique data on each of {@code threads} streams, optionally
     * writes the same data again (every chunk a duplicate), reads it back through the restore
     * pipeline and checks each stream's SHA-256 against what was written, then deletes it.
     */
    public Row run(int threads, long bytesPerThread, boolean repeat, LongConsumer progress) throws InterruptedException {
        byte[][] written = new byte[threads][];
        String group = prefix + "t" + threads + "/";
        Pass w = pass(threads, bytesPerThread, true, i -> group + "stream" + i, (client, session, i) -> {
            UniqueInput in = new UniqueInput(seed ^ threads, i, bytesPerThread, progress);
            BackupPipeline.Result r = storeAdmitted(in, session);
            SyntheticStream.await(session.commit(group + "stream" + i, r.recipe()));
            written[i] = in.sha256();
            count(bytesPerThread);
        });
        Pass again = null;
        if (repeat) {
            again = pass(threads, bytesPerThread, true, i -> group + "repeat" + i, (client, session, i) -> {
                UniqueInput in = new UniqueInput(seed ^ threads, i, bytesPerThread, progress);
                BackupPipeline.Result r = storeAdmitted(in, session);
                if (r.newChunks() != 0) {
                    throw new IllegalStateException("the store took " + r.newChunks() + " chunks of the same data again as new");
                }
                SyntheticStream.await(session.commit(group + "repeat" + i, r.recipe()));
                count(bytesPerThread);
            });
        }
        Pass r = pass(threads, bytesPerThread, false, i -> group + "stream" + i, (client, session, i) -> {
            Recipe recipe = client.recipe(group + "stream" + i)
                    .orElseThrow(() -> new IllegalStateException("object " + group + "stream" + i + " is gone"));
            HashingSink sink = new HashingSink(progress);
            try (MemoryBudget.Stream stream = pipeline.admitRestore()) {
                new RestorePipeline(pipeline, client).writeAll(recipe, sink, stream);
            }
            if (sink.length != bytesPerThread || !MessageDigest.isEqual(sink.digest.digest(), written[i])) {
                throw new IllegalStateException("object " + group + "stream" + i + " read back differs from what was written (SHA-256)");
            }
        });
        delete(group);
        return new Row(threads, w, again, r);
    }

    /** The title of this check's table: the store, the pipeline, the data. */
    public String title(long bytesPerThread) {
        ChunkerParams c = ChunkerParams.DEFAULT;
        return String.format(Locale.ROOT, "connchk: gpdedup-store at %s:%d%s, unit %s; the dedup plugin's pipeline (FastCDC "
                + "%d/%d/%d KiB, SHA-256, zstd 1), unique data, %s per thread; MB = 2^20 bytes", settings.host(), settings.port(),
                settings.tls() != null ? " over TLS" : "", settings.unit(), c.minSize() >> 10, c.avgSize() >> 10, c.maxSize() >> 10,
                ByteSize.binary(bytesPerThread));
    }

    /** What the check wrote and deleted, in one line. */
    String deletedLine() {
        return String.format(Locale.ROOT, "deleted the %d objects (%s) it wrote under %s in unit %s; the store frees their "
                + "chunks by itself after its quiet time following deletes (gc-after-delete-seconds)", deleted.get(), ByteSize.binary(bytes.get()), prefix, settings.unit());
    }

    /** Writes the table as CSV and JSON, and a chart of write and read MB/s by threads. */
    public static void write(RunFiles files, String name, ResultTable table, List<Row> rows) {
        files.table(name, table);
        Map<String, double[]> groups = new LinkedHashMap<>();
        groups.put("write", rows.stream().mapToDouble(r -> mbps(r.write())).toArray());
        if (rows.stream().allMatch(r -> r.repeat() != null)) {
            groups.put("repeat", rows.stream().mapToDouble(r -> mbps(r.repeat())).toArray());
        }
        groups.put("read", rows.stream().mapToDouble(r -> mbps(r.read())).toArray());
        Charts.bars(files.file(name + ".png"), table.title(), "threads", "MB/s", rows.stream().map(r -> String.valueOf(r.threads())).toList(),
                groups);
    }

    /** The rows as a table in MB/s (MB = 2^20 bytes); a repeat column when the rows have one. */
    public static ResultTable table(String title, List<Row> rows) {
        boolean repeat = rows.stream().anyMatch(r -> r.repeat() != null);
        List<String> cols = new ArrayList<>(List.of("threads", "write MB/s", "read MB/s", "write s", "read s",
                "client cpu % (write)", "client cpu % (read)", "read back"));
        if (repeat) {
            cols.add(2, "repeat MB/s");
        }
        ResultTable t = new ResultTable(title, cols);
        for (Row r : rows) {
            List<Object> cells = new ArrayList<>(List.of(r.threads(), mbps(r.write()), mbps(r.read()),
                    r.write().seconds(), r.read().seconds(), r.write().clientCpu() * 100, r.read().clientCpu() * 100, "SHA-256 ok"));
            if (repeat) {
                cells.add(2, r.repeat() == null ? null : (Object) mbps(r.repeat()));
            }
            t.add(cells.toArray());
        }
        return t;
    }

    /** A pass's rate in MB/s of 2^20 bytes. */
    public static double mbps(Pass p) {
        return p.bytesPerSecond() / (1 << 20);
    }

    /** The median round trip of {@code count} pings on one connection, in ms. */
    public double pingMillis(int count) {
        try (StoreClient c = StoreClient.connect(settings)) {
            double[] ms = new double[count];
            for (int i = 0; i < count; i++) {
                long t0 = System.nanoTime();
                c.ping();
                ms[i] = (System.nanoTime() - t0) / 1e6;
            }
            Arrays.sort(ms);
            return ms[count / 2];
        } catch (StoreClientException e) {
            throw new StoreTarget.Unusable(e.getMessage());
        }
    }

    /**
     * {@code threads} threads each write {@code filesPerThread} objects of {@code fileBytes} unique
     * bytes, one lease and commit each, on one connection per thread (as the plugin's calls of
     * jobs mode do through a host agent); then deletes them.
     */
    public FileRate files(int threads, int filesPerThread, int fileBytes) throws InterruptedException {
        String group = prefix + "files-t" + threads + "/";
        double[] perFile = new double[threads];
        Pass p = pass(threads, (long) filesPerThread * fileBytes, false, i -> group + i, (client, session, i) -> {
            long t0 = System.nanoTime();
            for (int f = 0; f < filesPerThread; f++) {
                String name = group + i + "-" + f;
                try (var s = client.beginBackup()) {
                    BackupPipeline.Result r = storeAdmitted(
                            new UniqueInput(seed ^ (0x5EED + threads), (long) i * filesPerThread + f, fileBytes, n -> { }), s);
                    SyntheticStream.await(s.commit(name, r.recipe()));
                }
                count(fileBytes);
            }
            perFile[i] = (System.nanoTime() - t0) / 1e6 / filesPerThread;
        });
        delete(group);
        int files = threads * filesPerThread;
        return new FileRate(threads, files, files / p.seconds(), Arrays.stream(perFile).average().orElse(0));
    }

    private Pass pass(int threads, long bytesPerThread, boolean backup, IntFunction<String> name, Connchk.Job job)
            throws InterruptedException {
        CpuMeter cpu = CpuMeter.start();
        StreamRun run;
        try {
            run = Connchk.parallel(settings, threads, bytesPerThread, backup, name, job);
        } catch (IllegalStateException e) {
            throw new StoreTarget.Unusable(e.getMessage());
        }
        double ours = cpu.ourBusy(0);
        if (!run.failures().isEmpty()) {
            throw new StoreTarget.Unusable(run.failures().size() + " of " + threads + " streams failed, first: " + run.failures().get(0));
        }
        return new Pass(run.bytesPerSecond(), run.seconds(), ours);
    }

    private void count(long n) {
        bytes.addAndGet(n);
    }

    private void delete(String group) {
        try (StoreClient c = StoreClient.connect(settings)) {
            deleted.addAndGet(c.deleteObjects(group));
        } catch (StoreClientException e) {
            throw new StoreTarget.Unusable("cannot delete the test objects under " + group + ": " + e.getMessage());
        }
    }

    private void deleteAll() {
        try (StoreClient c = StoreClient.connect(settings)) {
            c.deleteObjects(prefix);
        } catch (RuntimeException e) {
            // Reported by close(); from the shutdown hook there is no one left to tell.
        }
    }

    /** Deletes everything under the prefix (usually nothing is left by then) and stops the workers. */
    @Override
    public void close() {
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException e) {
            return;
        }
        try {
            delete(prefix);
        } finally {
            workers.shutdownNow();
        }
    }

    /**
     * Unique, incompressible bytes with their SHA-256, generated in fixed blocks so that the same
     * stream number gives the same bytes however the pipeline reads them.
     */
    private static final class UniqueInput extends InputStream {
        private static final int BLOCK = 64 * 1024;
        private final UniqueData data;
        private final MessageDigest digest = Fingerprint.newDigest();
        private final LongConsumer progress;
        private final byte[] block = new byte[BLOCK];
        private long left;
        private int pos = BLOCK;
        private int end = BLOCK;

        UniqueInput(long runSeed, long stream, long length, LongConsumer progress) {
            this.data = new UniqueData(UniqueData.seed(runSeed, stream));
            this.left = length;
            this.progress = progress;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (pos == end) {
                if (left == 0) {
                    return -1;
                }
                end = (int) Math.min(BLOCK, left);
                data.fill(block, 0, end);
                digest.update(block, 0, end);
                left -= end;
                pos = 0;
                progress.accept(end);
            }
            int n = Math.min(len, end - pos);
            System.arraycopy(block, pos, b, off, n);
            pos += n;
            return n;
        }

        byte[] sha256() {
            return digest.digest();
        }
    }

    /** Where a restore writes: counts and hashes the bytes, keeps none. */
    private static final class HashingSink extends OutputStream {
        final MessageDigest digest = Fingerprint.newDigest();
        final LongConsumer progress;
        long length;

        HashingSink(LongConsumer progress) {
            this.progress = progress;
        }

        @Override
        public void write(int b) {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            digest.update(b, off, len);
            length += len;
            progress.accept(len);
        }
    }
}
