package io.gpdedup.pg;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL server of our own on 127.0.0.1 (TCP only, trust authentication, superuser
 * {@code postgres}), for tests and the demo. Binaries come from the embedded bundle unless a
 * directory is named. Started as a direct child (through {@code setpriv} when we are root, see
 * {@link RunAs}) and stopped with SIGINT (PostgreSQL's fast shutdown) on {@link #close()} or when
 * the JVM exits. Settings favour speed over durability (fsync off): it holds scratch data.
 */
public final class PgServer implements AutoCloseable {
    private static final long START_TIMEOUT_MS = 60_000;

    private final Path directory;
    private final boolean ownsDirectory;
    private final Process process;
    private final int port;
    private final Thread shutdownHook;
    private boolean closed;

    private PgServer(Path directory, boolean ownsDirectory, Process process, int port) {
        this.directory = directory;
        this.ownsDirectory = ownsDirectory;
        this.process = process;
        this.port = port;
        this.shutdownHook = new Thread(this::stopQuietly, "pg-server-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    public static Builder builder() {
        return new Builder();
    }

    public int port() {
        return port;
    }

    /** {@code jdbc:postgresql://127.0.0.1:<port>/<database>?user=postgres}. */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?user=postgres";
    }

    public Path directory() {
        return directory;
    }

    public void createDatabase(String name) throws SQLException {
        Jdbc.createDatabase(jdbcUrl("postgres"), name);
    }

    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook is running or about to: it stops the server
        }
        stop();
        if (ownsDirectory) {
            PgBinaries.deleteTree(directory);
        }
    }

    private void stopQuietly() {
        try {
            stop();
            if (ownsDirectory) {
                PgBinaries.deleteTree(directory);
            }
        } catch (IOException | RuntimeException ignored) {
            // JVM exit: nothing left to report to
        }
    }

    private void stop() throws IOException {
        if (!process.isAlive()) {
            return;
        }
        // SIGINT is PostgreSQL's fast shutdown: it ends open sessions instead of waiting for them.
        signal(process.pid(), "INT");
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    private static void signal(long pid, String signal) throws IOException {
        try {
            new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** How to start the server; every setting has a default. */
    public static final class Builder {
        private Path directory;
        private Path binaries;
        private int port;
        private final Map<String, String> settings = new LinkedHashMap<>();

        private Builder() {
            settings.put("fsync", "off");
            settings.put("synchronous_commit", "off");
            settings.put("full_page_writes", "off");
            // No background vacuum: mutations between two backups leave the heap as the test made it.
            settings.put("autovacuum", "off");
            settings.put("max_connections", "100");
        }

        /** Where {@code data/} and {@code postgres.log} go; kept after close. Default: a fresh temp directory, removed on close. */
        public Builder directory(Path directory) {
            this.directory = directory;
            return this;
        }

        /** A PostgreSQL bin directory to use instead of the embedded binaries. */
        public Builder binaries(Path binDirectory) {
            this.binaries = binDirectory;
            return this;
        }

        /** 0 (default) picks a free port. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder setting(String name, String value) {
            settings.put(name, value);
            return this;
        }

        public PgServer start() throws IOException {
            RunAs account = RunAs.forServer();
            PgBinaries bins = binaries == null ? PgBinaries.embedded() : PgBinaries.at(binaries);
            boolean owns = directory == null;
            Path dir = owns ? Files.createTempDirectory("gpdedup-pg-") : directory.toAbsolutePath();
            try {
                Files.createDirectories(dir);
                if (owns) {
                    Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx--x--x"));
                }
                account.checkReachable(dir.resolve("data"));
                Path data = dir.resolve("data");
                if (!Files.exists(data.resolve("PG_VERSION"))) {
                    initdb(account, bins, dir, data);
                }
                for (int attempt = 0; ; attempt++) {
                    int p = port != 0 ? port : freePort();
                    Process proc = launch(account, bins, dir, data, p);
                    if (awaitReady(proc, p, dir)) {
                        return new PgServer(dir, owns, proc, p);
                    }
                    if (port != 0 || attempt == 4) {
                        throw new IOException("PostgreSQL did not start; end of " + dir.resolve("postgres.log") + ":\n" + tail(dir.resolve("postgres.log")));
                    }
                    // Someone took the port between our probe and the server's bind: try another.
                }
            } catch (IOException | RuntimeException e) {
                if (owns) {
                    PgBinaries.deleteTree(dir);
                }
                throw e;
            }
        }

        private void initdb(RunAs account, PgBinaries bins, Path dir, Path data) throws IOException {
            Files.createDirectories(data);
            Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
            account.own(data);
            List<String> cmd = new ArrayList<>(account.prefix());
            cmd.addAll(List.of(bins.program("initdb").toString(), "-D", data.toString(), "-U", "postgres", "-A", "trust",
                    "-E", "UTF8", "--locale=C", "--no-sync"));
            Path log = dir.resolve("initdb.log");
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
            pb.environment().put("LC_ALL", "C");
            pb.environment().remove("LANG");
            Process p = pb.start();
            try {
                if (!p.waitFor(120, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new IOException("initdb did not finish in 120 s");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
                throw new IOException("interrupted during initdb", e);
            }
            if (p.exitValue() != 0) {
                throw new IOException("initdb failed (" + p.exitValue() + ") as " + account.user() + ":\n" + tail(log));
            }
        }

        private Process launch(RunAs account, PgBinaries bins, Path dir, Path data, int p) throws IOException {
            List<String> cmd = new ArrayList<>(account.prefix());
            cmd.addAll(List.of(bins.program("postgres").toString(), "-D", data.toString(), "-p", Integer.toString(p),
                    "-h", "127.0.0.1", "-k", ""));
            for (Map.Entry<String, String> s : settings.entrySet()) {
                cmd.add("-c");
                cmd.add(s.getKey() + "=" + s.getValue());
            }
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("postgres.log").toFile()));
            pb.environment().put("LC_ALL", "C");
            return pb.start();
        }

        private static boolean awaitReady(Process proc, int p, Path dir) throws IOException {
            String url = "jdbc:postgresql://127.0.0.1:" + p + "/postgres?user=postgres&connectTimeout=2";
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(START_TIMEOUT_MS);
            while (System.nanoTime() < deadline) {
                if (!proc.isAlive()) {
                    return false;
                }
                try (Connection c = Jdbc.open(url)) {
                    return true;
                } catch (SQLException notYet) {
                    sleep(100);
                }
            }
            proc.destroyForcibly();
            throw new IOException("PostgreSQL did not accept connections within " + START_TIMEOUT_MS / 1000 + " s; see " + dir.resolve("postgres.log"));
        }

        private static int freePort() throws IOException {
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                return s.getLocalPort();
            }
        }

        private static void sleep(long ms) throws IOException {
            try {
                Thread.sleep(ms);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while PostgreSQL was starting", e);
            }
        }

        private static String tail(Path log) {
            try {
                List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
                return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
            } catch (IOException e) {
                return "(no log: " + e.getMessage() + ")";
            }
        }
    }
}
