package io.gpdedup.e2e.rig;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * The Greenplum rig ({@code scripts/rig}): a single-host Greenplum 6 cluster (coordinator and two
 * primary segments) with the real gpbackup, gprestore and gpbackup_helper. {@link #prepared()}
 * prepares it once per test JVM, building it the first time on a machine; {@link #assumeReady()}
 * skips a test with the reason where this machine cannot have it (not root, no apt-get or Go, the
 * build failed), so the skip and its cause show in the test report.
 */
final class Rig {
    /** The repository root, set by the end-to-end pom: {@code scripts/rig} lives there. */
    static final String REPOSITORY_PROPERTY = "gpdedup.repository";
    static final int COORDINATOR_PORT = 15432;
    private static final Duration PREPARE_LIMIT = Duration.ofMinutes(40);

    private static Rig prepared;
    private static String unavailable;

    private final Path home;

    private Rig(Path home) {
        this.home = home;
    }

    /**
     * The rig, prepared once per test JVM; null where this machine cannot have it. Call from
     * {@code @BeforeAll}, and {@link #assumeReady()} from {@code @BeforeEach}: an assumption that
     * fails in {@code @BeforeAll} shows in the surefire report as no tests at all.
     */
    static synchronized Rig prepared() throws IOException, InterruptedException {
        if (prepared == null && unavailable == null) {
            prepare();
        }
        return prepared;
    }

    /** Aborts the calling test, with the reason, where there is no rig: a skip with its cause in the test report. */
    static void assumeReady() throws IOException, InterruptedException {
        if (prepared() == null) {
            Assumptions.abort(unavailable);
        }
    }

    private static void prepare() throws IOException, InterruptedException {
        String env = System.getenv("RIG");
        Path home = Paths.get(env == null || env.isBlank() ? "/var/tmp/gpdedup-rig" : env);
        String repo = System.getProperty(REPOSITORY_PROPERTY);
        if (repo == null) {
            throw new IllegalStateException("system property " + REPOSITORY_PROPERTY + " is not set; run the rig tests through the end-to-end module");
        }
        ProcessBuilder pb = new ProcessBuilder("bash", Paths.get(repo, "scripts", "rig").toString(), "prepare").redirectErrorStream(true);
        pb.environment().put("RIG", home.toString());
        Process p = pb.start();
        String last = "";
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                System.out.println(line);
                last = line;
            }
        }
        if (!p.waitFor(PREPARE_LIMIT.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("scripts/rig prepare did not finish within " + PREPARE_LIMIT.toMinutes() + " minutes");
        }
        switch (p.exitValue()) {
            case 0 -> prepared = new Rig(home);
            case 3 -> unavailable = last;
            default -> throw new AssertionError("scripts/rig prepare failed (exit " + p.exitValue() + "): " + last);
        }
    }

    Path home() {
        return home;
    }

    /** gpbackup's source tree (plugins/plugin_test.sh, the example plugin). */
    Path backupSources() {
        return home.resolve("src/cloudberry-backup");
    }

    /** A command as gpadmin, output to {@code log}; see {@link AsGpadmin#run}. */
    AsGpadmin.Outcome run(Path workDir, Path log, Duration limit, List<String> command) throws IOException, InterruptedException {
        return AsGpadmin.run(home, workDir, log, limit, command, null, null);
    }

    /**
     * gprestore of backup {@code timestamp} as gpadmin; past {@code limit} (a hang) it is stopped
     * with its helpers, and the outcome tells where each segment's helper stood.
     */
    AsGpadmin.Outcome gprestore(Path workDir, Duration limit, String timestamp, List<String> args) throws IOException, InterruptedException {
        List<String> command = new java.util.ArrayList<>(List.of("gprestore", "--timestamp", timestamp));
        command.addAll(args);
        return AsGpadmin.run(home, workDir, workDir.resolve("gprestore-" + timestamp + "-" + System.nanoTime() + ".log"), limit, command,
                timestamp, () -> helperProgress(timestamp));
    }

    /** The last lines each segment's gpbackup_helper logged while restoring backup {@code ts}: which table's pipe it waits on, what it copied. */
    private static String helperProgress(String ts) {
        Path log = Paths.get("/home", AsGpadmin.USER, "gpAdminLogs", "gpbackup_helper_" + LocalDate.now().format(DateTimeFormatter.BASIC_ISO_DATE) + ".log");
        try {
            List<String> restoreLines = Files.readAllLines(log, StandardCharsets.UTF_8).stream()
                    .filter(l -> l.contains("_" + ts + "_pipe_") && l.contains(", Batch ")).toList();
            StringBuilder out = new StringBuilder();
            for (String segment : List.of("Segment 0:", "Segment 1:")) {
                List<String> mine = restoreLines.stream().filter(l -> l.contains(segment)).toList();
                mine.subList(Math.max(0, mine.size() - 2), mine.size()).forEach(l -> out.append(l).append('\n'));
            }
            return out.toString();
        } catch (IOException e) {
            return "(no gpbackup_helper log at " + log + ")";
        }
    }

    /** A connection to {@code database} on the coordinator, as gpadmin over loopback (trusted by the rig's pg_hba.conf). */
    Connection connect(String database) throws SQLException {
        return DriverManager.getConnection("jdbc:postgresql://127.0.0.1:" + COORDINATOR_PORT + "/" + database + "?user=" + AsGpadmin.USER);
    }

    /** Runs SQL statements in {@code database}, each in its own transaction. */
    void execute(String database, String... statements) throws SQLException {
        try (Connection c = connect(database); Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }

    /** Drops {@code database} if it exists (a restore target from an earlier run, say). */
    void dropDatabase(String database) throws SQLException {
        execute("postgres", "DROP DATABASE IF EXISTS " + database);
    }

    /** Removes the local backup directories gpbackup left on the cluster's hosts for backup {@code timestamp} (metadata, TOCs, reports). */
    void forgetBackup(String timestamp) throws IOException {
        List<Path> dataDirs = List.of(home.resolve("data/master/gpseg-1"), home.resolve("data/primary/gpseg0"), home.resolve("data/primary/gpseg1"));
        for (Path d : dataDirs) {
            Path day = d.resolve("backups").resolve(timestamp.substring(0, 8));
            deleteTree(day.resolve(timestamp));
            try (var left = Files.list(day)) {
                if (left.findAny().isEmpty()) {
                    Files.deleteIfExists(day);
                }
            } catch (java.nio.file.NoSuchFileException | java.nio.file.DirectoryNotEmptyException gone) {
                // another test's backup of the same day is there, or the directory never was
            }
        }
    }

    static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (var all = Files.walk(root)) {
            for (Path p : all.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
