package io.gpdedup.pg;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Restores a backup made by {@link SnapshotBackup} into a database, as gprestore does: the
 * metadata and TOC files come back through {@code restore_file}; pre-data DDL runs in one
 * transaction; table data goes {@code COPY ... FROM STDIN} with N connections each fed by its own
 * {@code restore_data} call (jobs backups), or from one {@code restore_data} stream read in TOC
 * order (single-data-file backups; with a table filter, {@code restore_data_subset} with the
 * selected ranges, unless subsets are off); then post-data DDL (keys, indexes) is applied. Each
 * table's row count must equal the one the backup recorded.
 */
public final class BackupRestore {
    public record Options(String jdbcUrl, PluginRunner plugin, Path backupRoot, String timestamp, int jobs, TableFilter filter,
            boolean useSubset, String label) {
        public Options {
            if (jobs < 1) {
                throw new IllegalArgumentException("--jobs must be at least 1, got " + jobs);
            }
        }
    }

    private final Options options;

    public BackupRestore(Options options) {
        this.options = options;
    }

    public RestoreResult run() throws IOException, SQLException, InterruptedException {
        long t0 = System.nanoTime();
        BackupLayout layout = BackupLayout.of(options.backupRoot(), options.timestamp());
        Files.createDirectories(layout.directory());
        options.plugin().restoreFile(layout.configFile());
        BackupToc.Config config = BackupToc.read(layout.configFile(), BackupToc.Config.class);
        if (!Jdbc.COPY_OPTIONS.equals(config.copyOptions())) {
            throw new IOException("backup " + options.timestamp() + " was taken with COPY " + config.copyOptions() + "; this restore reads " + Jdbc.COPY_OPTIONS);
        }
        options.plugin().restoreFile(layout.tocFile());
        options.plugin().restoreFile(layout.metadataFile());
        BackupToc.Toc toc = BackupToc.read(layout.tocFile(), BackupToc.Toc.class);
        List<BackupToc.DataEntry> selected = toc.dataEntries().stream()
                .filter(e -> options.filter().accepts(e.schema(), e.name())).toList();
        if (selected.isEmpty()) {
            throw new IllegalArgumentException("the table filter selects none of the " + toc.dataEntries().size() + " tables of backup " + options.timestamp());
        }
        SchemaScript schema = SchemaScript.read(layout.metadataFile());
        List<String> names = selected.stream().map(BackupToc.DataEntry::displayName).toList();
        boolean all = selected.size() == toc.dataEntries().size();

        try (Connection ddl = Jdbc.open(options.jdbcUrl())) {
            ddl.setAutoCommit(false);
            apply(ddl, schema.select(SchemaScript.Section.PRE, names), all);
            ddl.commit();
        }
        long rows;
        long bytes;
        boolean subset = false;
        if (config.singleDataFile()) {
            subset = !all && options.useSubset();
            long[] totals = restoreStream(layout, selected, subset);
            rows = totals[0];
            bytes = totals[1];
        } else {
            long[] totals = restoreTables(layout, selected);
            rows = totals[0];
            bytes = totals[1];
        }
        try (Connection ddl = Jdbc.open(options.jdbcUrl())) {
            ddl.setAutoCommit(false);
            apply(ddl, schema.select(SchemaScript.Section.POST, names), all);
            ddl.commit();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        return new RestoreResult(options.label(), options.timestamp(), config.singleDataFile() ? "single-data-file" : "jobs",
                config.singleDataFile() ? 1 : options.jobs(), selected.size(), rows, bytes, seconds, subset);
    }

    /** Runs DDL; foreign keys only when every table was restored (their targets may be missing otherwise). */
    private static void apply(Connection c, List<SchemaScript.Entry> entries, boolean allTables) throws SQLException {
        for (SchemaScript.Entry e : entries) {
            if (!allTables && e.kind().equals("FK CONSTRAINT")) {
                continue;
            }
            try {
                Jdbc.execute(c, e.kind().equals("PG_DUMP") ? PgDumpSchema.executable(e.sql()) : e.sql());
            } catch (SQLException ex) {
                throw new SQLException("restoring " + e.kind() + (e.table() != null ? " of " + e.table() : "") + " failed: " + ex.getMessage(),
                        ex.getSQLState(), ex);
            }
        }
    }

    /** Jobs backups: N connections, one restore_data per table, largest first. */
    private long[] restoreTables(BackupLayout layout, List<BackupToc.DataEntry> selected) throws IOException, SQLException, InterruptedException {
        ConcurrentLinkedQueue<BackupToc.DataEntry> queue = new ConcurrentLinkedQueue<>(
                selected.stream().sorted(Comparator.comparingLong(BackupToc.DataEntry::bytes).reversed()).toList());
        AtomicLong rows = new AtomicLong();
        AtomicLong bytes = new AtomicLong();
        AtomicBoolean failed = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(options.jobs(), r -> {
            Thread t = new Thread(r, "pg-restore");
            t.setDaemon(true);
            return t;
        });
        List<Future<Object>> futures = new ArrayList<>();
        for (int w = 0; w < options.jobs(); w++) {
            futures.add(pool.submit(() -> {
                try (Connection c = Jdbc.open(options.jdbcUrl())) {
                    BackupToc.DataEntry e;
                    while (!failed.get() && (e = queue.poll()) != null) {
                        PluginRunner.Download d = options.plugin().restoreData(layout.tableDataPath(e.oid()));
                        CountingInputStream in = new CountingInputStream(d.stream());
                        long n;
                        try {
                            n = copyIn(c, e, in);
                        } catch (IOException | SQLException | RuntimeException ex) {
                            d.abort();
                            throw ex;
                        }
                        d.finish();
                        rows.addAndGet(n);
                        bytes.addAndGet(in.count());
                    }
                } catch (Exception ex) {
                    failed.set(true);
                    throw ex;
                }
                return null;
            }));
        }
        pool.shutdown();
        Exception first = null;
        for (Future<Object> f : futures) {
            try {
                f.get();
            } catch (ExecutionException e) {
                if (first == null && e.getCause() instanceof Exception cause) {
                    first = cause;
                }
            }
        }
        pool.awaitTermination(30, TimeUnit.SECONDS);
        TaskFailure.rethrow(first);
        return new long[] {rows.get(), bytes.get()};
    }

    /** Single-data-file backups: one stream, tables in stream order, one connection (gprestore requires --jobs 1). */
    private long[] restoreStream(BackupLayout layout, List<BackupToc.DataEntry> selected, boolean subset) throws IOException, SQLException {
        options.plugin().restoreFile(layout.segmentTocFile());
        BackupToc.SegmentToc offsets = BackupToc.read(layout.segmentTocFile(), BackupToc.SegmentToc.class);
        List<BackupToc.DataEntry> inStreamOrder = new ArrayList<>(selected);
        for (BackupToc.DataEntry e : inStreamOrder) {
            if (!offsets.dataEntries().containsKey(e.oid())) {
                throw new IOException("table " + e.displayName() + " (oid " + e.oid() + ") is missing from " + layout.segmentTocFile());
            }
        }
        inStreamOrder.sort(Comparator.comparingLong(e -> offsets.dataEntries().get(e.oid()).start()));
        PluginRunner.Download d;
        if (subset) {
            Path offsetsFile = layout.directory().resolve("gprestore_" + layout.timestamp() + "_offsets");
            StringBuilder sb = new StringBuilder().append(inStreamOrder.size());
            for (BackupToc.DataEntry e : inStreamOrder) {
                BackupToc.Range r = offsets.dataEntries().get(e.oid());
                sb.append(' ').append(r.start()).append(' ').append(r.end());
            }
            Files.writeString(offsetsFile, sb.append('\n').toString(), StandardCharsets.US_ASCII);
            d = options.plugin().restoreDataSubset(layout.singleDataFilePath(), offsetsFile);
        } else {
            d = options.plugin().restoreData(layout.singleDataFilePath());
        }
        long rows = 0;
        long bytes = 0;
        try (Connection c = Jdbc.open(options.jdbcUrl())) {
            InputStream in = d.stream();
            long pos = 0;
            for (BackupToc.DataEntry e : inStreamOrder) {
                BackupToc.Range r = offsets.dataEntries().get(e.oid());
                if (!subset) {
                    // gpbackup_helper discards what lies between the tables it restores.
                    in.skipNBytes(r.start() - pos);
                    pos = r.start();
                }
                long length = r.end() - r.start();
                rows += copyIn(c, e, new BoundedInputStream(in, length));
                pos += length;
                bytes += length;
            }
            if (subset && in.read() >= 0) {
                throw new IOException("restore_data_subset returned more bytes than the ranges asked for");
            }
        } catch (IOException | SQLException | RuntimeException ex) {
            d.abort();
            throw ex;
        }
        if (!subset) {
            // The rest of the stream (tables after the last one restored) is not needed.
            d.stream().transferTo(java.io.OutputStream.nullOutputStream());
        }
        d.finish();
        return new long[] {rows, bytes};
    }

    private static long copyIn(Connection c, BackupToc.DataEntry e, InputStream in) throws IOException, SQLException {
        long n = Jdbc.copy(c).copyIn("COPY " + e.sql() + " FROM STDIN " + Jdbc.COPY_OPTIONS, in, 1 << 16);
        if (n != e.rows()) {
            throw new IOException("table " + e.displayName() + ": restored " + n + " rows, the backup recorded " + e.rows());
        }
        return n;
    }

    /** Exactly {@code length} bytes of the underlying stream, then end of file; fails if the stream ends first. */
    private static final class BoundedInputStream extends InputStream {
        private final InputStream in;
        private long left;

        BoundedInputStream(InputStream in, long length) {
            this.in = in;
            this.left = length;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (left == 0) {
                return -1;
            }
            int n = in.read(b, off, (int) Math.min(len, left));
            if (n < 0) {
                throw new IOException("the restored stream ended " + left + " bytes early");
            }
            left -= n;
            return n;
        }
    }

    private static final class CountingInputStream extends InputStream {
        private final InputStream in;
        private long count;

        CountingInputStream(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }

        long count() {
            return count;
        }
    }
}
