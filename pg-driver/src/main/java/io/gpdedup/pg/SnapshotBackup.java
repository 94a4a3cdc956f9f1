package io.gpdedup.pg;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One gpbackup-like backup of a PostgreSQL database through a plugin executable.
 *
 * <p>Consistency follows gpbackup: worker 0 opens a REPEATABLE READ transaction, exports its
 * snapshot, lists the tables and takes ACCESS SHARE locks on all of them, and writes the schema
 * from the catalogs in that transaction. Copy workers 1..N each import the snapshot
 * ({@code SET TRANSACTION SNAPSHOT}) in a fresh transaction per table and lock the table
 * {@code NOWAIT} before its COPY: an exclusive lock queued by someone else (a TRUNCATE, an ALTER)
 * would otherwise make the COPY wait behind it while the exclusive lock waits for worker 0, which
 * waits for the COPY. When the lock is not available the worker rolls back, hands the table to
 * worker 0 (which already holds the lock, so its COPY cannot queue) and goes on with the next
 * table in a new transaction on the same snapshot. Worker 0 copies nothing else.
 *
 * <p>Data: {@code COPY ... TO STDOUT WITH (FORMAT csv, DELIMITER ',')} (gpbackup's format) through
 * PgJDBC. The schema comes from the catalogs or pg_dump ({@link SchemaSource}). Jobs mode: one
 * {@code backup_data} per table, largest tables first. Single-data-file
 * mode: one stream in oid order (gpbackup_helper's order), {@code --copy-queue-size} workers
 * copying ahead into bounded pipes, and a TOC of offsets stored with {@code backup_file}.
 */
public final class SnapshotBackup {
    /**
     * @param copyWorkers connections that COPY besides worker 0: gpbackup's {@code --jobs} in jobs
     *     mode, {@code --copy-queue-size} in single-data-file mode
     */
    public record Options(String jdbcUrl, PluginRunner plugin, Path backupRoot, boolean singleDataFile, int copyWorkers,
            TableFilter filter, String label, SchemaSource schemaSource) {
        public Options {
            if (copyWorkers < 1) {
                throw new IllegalArgumentException("need at least one copy worker, got " + copyWorkers);
            }
        }

        /** DDL from the catalogs. */
        public Options(String jdbcUrl, PluginRunner plugin, Path backupRoot, boolean singleDataFile, int copyWorkers, TableFilter filter,
                String label) {
            this(jdbcUrl, plugin, backupRoot, singleDataFile, copyWorkers, filter, label, SchemaSource.CATALOG);
        }
    }

    private final Options options;
    private BackupListener listener = BackupListener.NONE;

    public SnapshotBackup(Options options) {
        this.options = options;
    }

    public SnapshotBackup listener(BackupListener l) {
        this.listener = l;
        return this;
    }

    public BackupResult run() throws IOException, SQLException, InterruptedException {
        long t0 = System.nanoTime();
        BackupLayout layout = BackupLayout.newBackup(options.backupRoot());
        try (Connection worker0 = Jdbc.open(options.jdbcUrl())) {
            worker0.setAutoCommit(false);
            worker0.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            String snapshot = Jdbc.queryString(worker0, "SELECT pg_catalog.pg_export_snapshot()");
            List<TableRef> tables = Catalog.tables(worker0, options.filter());
            if (tables.isEmpty()) {
                throw new IllegalArgumentException("no tables to back up in " + worker0.getCatalog() + (options.filter().selectsAll() ? "" : " with this filter"));
            }
            Catalog.lockAll(worker0, tables);
            listener.locksHeld(tables);

            schema(worker0, snapshot, tables).write(layout.metadataFile());
            options.plugin().backupFile(layout.metadataFile());

            List<TableRef> order = new ArrayList<>(tables);
            order.sort(options.singleDataFile() ? Comparator.comparingLong(TableRef::oid)
                    : Comparator.comparingLong(TableRef::diskBytes).reversed().thenComparingLong(TableRef::oid));
            DataPhase data = new DataPhase(layout, order, worker0, snapshot);
            data.run();

            List<BackupToc.DataEntry> entries = new ArrayList<>();
            Map<Long, BackupToc.Range> ranges = new LinkedHashMap<>();
            long rows = 0;
            long bytes = 0;
            int empty = 0;
            for (int i = 0; i < order.size(); i++) {
                TableRef t = order.get(i);
                entries.add(new BackupToc.DataEntry(t.oid(), t.schema(), t.name(), data.rows[i], data.bytes[i]));
                rows += data.rows[i];
                bytes += data.bytes[i];
                empty += data.rows[i] == 0 ? 1 : 0;
                if (options.singleDataFile()) {
                    ranges.put(t.oid(), new BackupToc.Range(data.stream.start(i), data.stream.end(i)));
                }
            }
            if (options.singleDataFile()) {
                BackupToc.write(layout.segmentTocFile(), new BackupToc.SegmentToc(ranges));
                options.plugin().backupFile(layout.segmentTocFile());
            }
            BackupToc.write(layout.tocFile(), new BackupToc.Toc(entries));
            options.plugin().backupFile(layout.tocFile());
            BackupToc.write(layout.configFile(), new BackupToc.Config(layout.timestamp(), worker0.getCatalog(), options.singleDataFile(),
                    options.singleDataFile() ? 1 : options.copyWorkers(), options.singleDataFile() ? options.copyWorkers() : 0,
                    Jdbc.COPY_OPTIONS, "gpdedup-bench"));
            options.plugin().backupFile(layout.configFile());
            worker0.commit();

            double seconds = (System.nanoTime() - t0) / 1e9;
            BackupResult result = new BackupResult(options.label(), layout.timestamp(), options.singleDataFile() ? "single-data-file" : "jobs",
                    options.copyWorkers(), order.size(), empty, rows, bytes, seconds, List.copyOf(data.deferred), null);
            if (options.plugin().logDirectory().isPresent()) {
                PluginLogStats.Totals totals = PluginLogStats.forBackup(options.plugin().logDirectory().get(), layout.timestamp());
                if (totals.calls() > 0) {
                    result = result.withDedup(totals);
                }
            }
            return result;
        }
    }

    private SchemaScript schema(Connection worker0, String snapshot, List<TableRef> tables) throws SQLException, IOException {
        SchemaScript catalog = CatalogSchema.read(worker0, tables);
        if (options.schemaSource() == SchemaSource.CATALOG) {
            return catalog;
        }
        java.util.Optional<Path> pgDump = PgDumpSchema.find();
        if (pgDump.isEmpty()) {
            if (options.schemaSource() == SchemaSource.PG_DUMP) {
                throw new IOException("--schema-from pg_dump: no pg_dump on the PATH");
            }
            return catalog;
        }
        try {
            return PgDumpSchema.read(pgDump.get(), options.jdbcUrl(), snapshot, tables, catalog);
        } catch (IOException | SQLException e) {
            if (options.schemaSource() == SchemaSource.PG_DUMP) {
                throw e;
            }
            listener.schemaFallback(e.getMessage());
            return catalog;
        }
    }

    /** The copy workers, worker 0's deferred queue and, in single-data-file mode, the stream writer. */
    private final class DataPhase {
        private static final int NO_MORE = -1;

        private final BackupLayout layout;
        private final List<TableRef> order;
        private final Connection worker0;
        private final String snapshot;
        private final long[] rows;
        private final long[] bytes;
        private final List<String> deferred = Collections.synchronizedList(new ArrayList<>());
        private final ConcurrentLinkedQueue<Integer> queue = new ConcurrentLinkedQueue<>();
        private final LinkedBlockingQueue<Integer> handedToWorker0 = new LinkedBlockingQueue<>();
        private final AtomicBoolean cancelled = new AtomicBoolean();
        private final AtomicReference<Throwable> firstFailure = new AtomicReference<>();
        private final List<Connection> connections = Collections.synchronizedList(new ArrayList<>());
        private SingleDataFileStream stream;

        DataPhase(BackupLayout layout, List<TableRef> order, Connection worker0, String snapshot) {
            this.layout = layout;
            this.order = order;
            this.worker0 = worker0;
            this.snapshot = snapshot;
            this.rows = new long[order.size()];
            this.bytes = new long[order.size()];
            for (int i = 0; i < order.size(); i++) {
                queue.add(i);
            }
        }

        void run() throws IOException, SQLException, InterruptedException {
            int workers = options.copyWorkers();
            ExecutorService pool = Executors.newFixedThreadPool(workers + 2, r -> {
                Thread t = new Thread(r, "pg-backup");
                t.setDaemon(true);
                return t;
            });
            List<Future<?>> futures = new ArrayList<>();
            try {
                if (options.singleDataFile()) {
                    stream = new SingleDataFileStream(options.plugin(), layout.singleDataFilePath(), order.size(), cancelled::get);
                    futures.add(pool.submit(task(stream::drain)));
                }
                CountDownLatch copyWorkersDone = new CountDownLatch(workers);
                for (int w = 1; w <= workers; w++) {
                    int id = w;
                    futures.add(pool.submit(task(() -> {
                        try {
                            copyWorker(id);
                        } finally {
                            copyWorkersDone.countDown();
                        }
                        return null;
                    })));
                }
                futures.add(pool.submit(task(() -> {
                    copyWorkersDone.await();
                    handedToWorker0.add(NO_MORE);
                    return null;
                })));
                futures.add(pool.submit(task(() -> {
                    worker0Loop();
                    return null;
                })));
                for (Future<?> f : futures) {
                    try {
                        f.get();
                    } catch (ExecutionException e) {
                        // recorded by task(); the first failure is the cause, the rest follow from cancel()
                    }
                }
            } finally {
                if (firstFailure.get() != null) {
                    cancel();
                }
                pool.shutdownNow();
                pool.awaitTermination(30, TimeUnit.SECONDS);
            }
            TaskFailure.rethrow(firstFailure.get());
        }

        /** Wraps a task so that its failure, if first, is kept and stops every other task. */
        private Callable<Object> task(Callable<?> body) {
            return () -> {
                try {
                    return body.call();
                } catch (Exception | Error e) {
                    if (firstFailure.compareAndSet(null, e)) {
                        cancel();
                    }
                    throw e;
                }
            };
        }

        private void cancel() {
            if (cancelled.compareAndSet(false, true)) {
                if (stream != null) {
                    stream.abort();
                }
                // Closing a connection ends a COPY in flight on it; worker 0's is closed by run().
                synchronized (connections) {
                    for (Connection c : connections) {
                        try {
                            c.close();
                        } catch (SQLException ignored) {
                            // it is being torn down anyway
                        }
                    }
                }
            }
        }

        private void copyWorker(int id) throws IOException, SQLException {
            try (Connection c = Jdbc.open(options.jdbcUrl())) {
                connections.add(c);
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                boolean inSnapshot = false;
                Integer index;
                while (!cancelled.get() && (index = queue.poll()) != null) {
                    TableRef t = order.get(index);
                    if (!inSnapshot) {
                        Jdbc.execute(c, "SET TRANSACTION SNAPSHOT " + Jdbc.literal(snapshot));
                        inSnapshot = true;
                    }
                    try {
                        Jdbc.execute(c, "LOCK TABLE " + t.sql() + " IN ACCESS SHARE MODE NOWAIT");
                    } catch (SQLException e) {
                        if (!Jdbc.LOCK_NOT_AVAILABLE.equals(e.getSQLState())) {
                            throw e;
                        }
                        // The transaction is aborted: start over on the same snapshot with the next table.
                        c.rollback();
                        inSnapshot = false;
                        deferred.add(t.displayName());
                        listener.deferred(t, id);
                        handedToWorker0.add(index);
                        continue;
                    }
                    copy(c, index, id);
                    // One table per transaction, as gpbackup: its lock goes as soon as its data is out.
                    c.commit();
                    inSnapshot = false;
                }
            }
        }

        private void worker0Loop() throws IOException, SQLException, InterruptedException {
            while (!cancelled.get()) {
                Integer index = handedToWorker0.poll(100, TimeUnit.MILLISECONDS);
                if (index == null) {
                    continue;
                }
                if (index == NO_MORE) {
                    return;
                }
                copy(worker0, index, 0);
            }
        }

        private void copy(Connection c, int index, int worker) throws IOException, SQLException {
            TableRef t = order.get(index);
            String sql = "COPY " + t.sql() + " TO STDOUT " + Jdbc.COPY_OPTIONS;
            if (options.singleDataFile()) {
                CountingOutputStream out = new CountingOutputStream(stream.tableOutput(index));
                rows[index] = Jdbc.copy(c).copyOut(sql, out);
                out.close();
                bytes[index] = out.count();
            } else {
                PluginRunner.Upload upload = options.plugin().backupData(layout.tableDataPath(t.oid()));
                try {
                    CountingOutputStream out = new CountingOutputStream(new BufferedOutputStream(upload.stream(), 1 << 16));
                    rows[index] = Jdbc.copy(c).copyOut(sql, out);
                    out.flush();
                    bytes[index] = out.count();
                } catch (IOException e) {
                    throw upload.explain(e);
                } catch (SQLException | RuntimeException e) {
                    upload.abort();
                    throw e;
                }
                upload.finish();
            }
            listener.copied(t, worker, rows[index], bytes[index]);
        }
    }

    /** Counts bytes on their way through. */
    private static final class CountingOutputStream extends OutputStream {
        private final OutputStream out;
        private final AtomicLong count = new AtomicLong();

        CountingOutputStream(OutputStream out) {
            this.out = out;
        }

        @Override
        public void write(int b) throws IOException {
            out.write(b);
            count.incrementAndGet();
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
            count.addAndGet(len);
        }

        @Override
        public void flush() throws IOException {
            out.flush();
        }

        @Override
        public void close() throws IOException {
            out.close();
        }

        long count() {
            return count.get();
        }
    }
}
