package io.gpdedup.pg;

import java.io.IOException;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Creates a {@link GenerationPlan}'s tables in one schema, each shaped like {@link OrdersTable}
 * ({@code id bigint} primary key, timestamps, amounts, statuses and free text) and loaded with
 * {@code COPY FROM STDIN} from seeded rows, ids 1..n in order, in the transaction that creates the
 * table (so the heap holds them in that order), primary key added after the load.
 * Row counts come from the mean row length, so sizes are close to, not exactly, the plan's.
 */
public final class DatabaseGenerator {
    /** What was created. */
    public record Result(String schema, int tables, int emptyTables, long rows, long copyBytes, double seconds) {
    }

    private DatabaseGenerator() {
    }

    /** Creates schema {@code schema} (which must not exist unless {@code replace}) and loads it with {@code jobs} connections. */
    public static Result generate(String jdbcUrl, String schema, GenerationPlan plan, int jobs, boolean replace)
            throws SQLException, IOException, InterruptedException {
        long t0 = System.nanoTime();
        try (Connection c = Jdbc.open(jdbcUrl)) {
            if (replace) {
                Jdbc.execute(c, "DROP SCHEMA IF EXISTS " + Jdbc.quote(schema) + " CASCADE");
            }
            try {
                Jdbc.execute(c, "CREATE SCHEMA " + Jdbc.quote(schema));
            } catch (SQLException e) {
                throw new SQLException("cannot create schema " + schema + " (use --replace to drop an existing one): " + e.getMessage(), e.getSQLState(), e);
            }
        }
        ConcurrentLinkedQueue<GenerationPlan.Table> queue = new ConcurrentLinkedQueue<>(plan.tables());
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, jobs));
        List<Future<long[]>> futures = new ArrayList<>();
        for (int w = 0; w < Math.max(1, jobs); w++) {
            futures.add(pool.submit(() -> {
                long rows = 0;
                long bytes = 0;
                try (Connection c = Jdbc.open(jdbcUrl)) {
                    GenerationPlan.Table t;
                    while ((t = queue.poll()) != null) {
                        long n = rowsFor(t.bytes());
                        String name = qualified(schema, t.name());
                        // Created and loaded in one transaction, as bulk loads are: COPY then bypasses
                        // the free space map, so rows lie in id order and no page's leftover space
                        // is on record for later updates to fill (until a VACUUM records it).
                        c.setAutoCommit(false);
                        Jdbc.execute(c, tableDdl(schema, t.name()));
                        if (n > 0) {
                            CountingRows in = new CountingRows(OrderRows.of(t.seed(), 1, n));
                            rows += Jdbc.copy(c).copyIn("COPY " + name + " FROM STDIN", in, 1 << 16);
                            bytes += in.count;
                        }
                        Jdbc.execute(c, "ALTER TABLE " + name + " ADD PRIMARY KEY (id)");
                        c.commit();
                        c.setAutoCommit(true);
                        Jdbc.execute(c, "ANALYZE " + name);
                    }
                }
                return new long[] {rows, bytes};
            }));
        }
        pool.shutdown();
        long rows = 0;
        long bytes = 0;
        try {
            for (Future<long[]> f : futures) {
                long[] r = f.get();
                rows += r[0];
                bytes += r[1];
            }
        } catch (ExecutionException e) {
            pool.shutdownNow();
            TaskFailure.rethrow(e.getCause());
        }
        int empty = (int) plan.tables().stream().filter(t -> rowsFor(t.bytes()) == 0).count();
        return new Result(schema, plan.tables().size(), empty, rows, bytes, (System.nanoTime() - t0) / 1e9);
    }

    /** {@link OrdersTable#DDL} under another name, without its primary key (added after the load). */
    static String tableDdl(String schema, String table) {
        String prefix = "CREATE TABLE orders (id bigint PRIMARY KEY,";
        if (!OrdersTable.DDL.startsWith(prefix)) {
            throw new IllegalStateException("OrdersTable.DDL changed shape: " + OrdersTable.DDL);
        }
        return "CREATE TABLE " + qualified(schema, table) + " (id bigint NOT NULL," + OrdersTable.DDL.substring(prefix.length());
    }

    static long rowsFor(long bytes) {
        return bytes <= 0 ? 0 : Math.max(1, Math.round(bytes / OrderRows.MEAN_ROW_BYTES));
    }

    static String qualified(String schema, String table) {
        return Jdbc.quote(schema) + "." + Jdbc.quote(table);
    }

    private static final class CountingRows extends java.io.InputStream {
        private final java.io.InputStream in;
        private long count;

        CountingRows(java.io.InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            count += b >= 0 ? 1 : 0;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            count += Math.max(0, n);
            return n;
        }
    }
}
