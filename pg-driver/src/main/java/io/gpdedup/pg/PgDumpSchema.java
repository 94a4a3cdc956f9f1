package io.gpdedup.pg;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.postgresql.Driver;

/**
 * The backup's DDL from {@code pg_dump --schema-only}, run by worker 0 on its exported snapshot
 * ({@code --snapshot}), once for the pre-data and once for the post-data section, with a lock wait
 * timeout: pg_dump takes its own ACCESS SHARE locks, and one queued behind somebody's exclusive
 * lock would otherwise wait for worker 0, which waits for pg_dump. {@code -t} names every table, so
 * pg_dump leaves out the schemas and sequence values: those come from {@link CatalogSchema}.
 */
final class PgDumpSchema {
    private static final long LOCK_WAIT_MS = 10_000;
    private static final long TIMEOUT_S = 600;

    private PgDumpSchema() {
    }

    /** pg_dump on the PATH, if any. */
    static Optional<Path> find() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(":")) {
            Path p = Paths.get(dir.isEmpty() ? "." : dir, "pg_dump");
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /** {@code catalog}'s schema and sequence-value entries around pg_dump's two sections. */
    static SchemaScript read(Path pgDump, String jdbcUrl, String snapshot, List<TableRef> tables, SchemaScript catalog)
            throws IOException, SQLException {
        List<SchemaScript.Entry> out = new ArrayList<>();
        catalog.entries().stream().filter(e -> e.kind().equals("SCHEMA")).forEach(out::add);
        out.add(new SchemaScript.Entry(SchemaScript.Section.PRE, "PG_DUMP", null, null, dump(pgDump, jdbcUrl, snapshot, tables, "pre-data")));
        catalog.entries().stream().filter(e -> e.kind().equals("SEQUENCE SET") && e.table() != null).forEach(out::add);
        out.add(new SchemaScript.Entry(SchemaScript.Section.POST, "PG_DUMP", null, null, dump(pgDump, jdbcUrl, snapshot, tables, "post-data")));
        catalog.entries().stream().filter(e -> e.kind().equals("IDENTITY SET")).forEach(out::add);
        return new SchemaScript(out);
    }

    /** What a restore executes of a pg_dump script: without psql meta-commands ({@code \restrict} and the like). */
    static String executable(String script) {
        return script.lines().filter(l -> !l.startsWith("\\")).collect(Collectors.joining("\n"));
    }

    private static String dump(Path pgDump, String jdbcUrl, String snapshot, List<TableRef> tables, String section)
            throws IOException, SQLException {
        Properties p = Driver.parseURL(jdbcUrl, new Properties());
        if (p == null) {
            throw new SQLException("cannot parse " + jdbcUrl);
        }
        List<String> cmd = new ArrayList<>(List.of(pgDump.toString(), "--schema-only", "--section=" + section, "--no-owner",
                "--no-privileges", "--snapshot=" + snapshot, "--lock-wait-timeout=" + LOCK_WAIT_MS,
                "-h", p.getProperty("PGHOST", "localhost").split(",")[0], "-p", p.getProperty("PGPORT", "5432").split(",")[0],
                "-d", p.getProperty("PGDBNAME")));
        if (p.getProperty("user") != null) {
            cmd.add("-U");
            cmd.add(p.getProperty("user"));
        }
        for (TableRef t : tables) {
            cmd.add("-t");
            cmd.add("\"" + t.schema().replace("\"", "\"\"") + "\".\"" + t.name().replace("\"", "\"\"") + "\"");
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        if (p.getProperty("password") != null) {
            pb.environment().put("PGPASSWORD", p.getProperty("password"));
        }
        Path err = Files.createTempFile("pg_dump", ".err");
        try {
            Process proc = pb.redirectError(err.toFile()).start();
            proc.getOutputStream().close();
            String script = new String(proc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!proc.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                proc.destroyForcibly();
                throw new IOException("pg_dump --section=" + section + " did not finish in " + TIMEOUT_S + " s");
            }
            if (proc.exitValue() != 0) {
                throw new IOException("pg_dump --section=" + section + " failed: " + Files.readString(err, StandardCharsets.UTF_8).trim());
            }
            return script;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted during pg_dump", e);
        } finally {
            Files.deleteIfExists(err);
        }
    }
}
