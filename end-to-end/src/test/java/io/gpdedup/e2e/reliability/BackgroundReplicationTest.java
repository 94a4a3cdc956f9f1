package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.ConfigFile;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.PluginShell;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * Replication off gpbackup's critical path, through the executables of {@code dist/}: backups taken
 * as gpbackup takes them (hooks, data, coordinator files, then in its teardown the config and the
 * report, stored with backup_file, then the cleanup hooks), with {@code replication: "on"}. The
 * coordinator's cleanup hook only queues a job in the primary gpdedup-store and exits 0; the store
 * copies the backup to the remote one in the background. Only a backup whose report says Success
 * is queued; a remote that is down is retried until it is up, across a kill -9 of the primary; the
 * replica restores byte for byte through a config that points at the remote.
 */
@Timeout(600)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(WaitingLane.LOCK)
class BackgroundReplicationTest {
    private static final Duration PATIENCE = Duration.ofSeconds(180);
    private static final Pattern JOB = Pattern.compile("\\{[^{}]*\\}");

    @TempDir
    Path dir;
    private Path agentDir;
    private PluginShell plugin;
    private final List<StoreProcess> stores = new ArrayList<>();

    /**
     * What one simulated backup stored: the paths gpbackup named the data streams and the coordinator
     * files by, and their bytes.
     */
    private record Backup(Timestamp timestamp, Map<String, byte[]> data, Map<Path, byte[]> files) {
    }

    @BeforeEach
    void shell() throws IOException {
        agentDir = dir.resolve("agent");
        plugin = new PluginShell(Dist.executable("gpbackup_dedup_plugin"), Files.createDirectories(dir.resolve("cwd")),
                Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
    }

    @AfterEach
    void stop() throws InterruptedException {
        for (StoreProcess s : stores) {
            s.close();
        }
        HostAgents.kill(agentDir);
    }

    @Test
    void aCompletedBackupIsCopiedInTheBackgroundAndItsReplicaRestoresByteForByte() throws Exception {
        StoreProcess remote = started(StoreProcess.start(dir.resolve("remote")));
        StoreProcess primary = primary(dir.resolve("primary"), remote.port());
        Path cfg = pluginConfig("repl", primary.port(), remote.port());

        Backup b = backup(cfg, new Timestamp("20261123101500"), "Success", 1);
        String job = awaitJob(primary, "cluster1/backups/20261123/20261123101500/", j -> j.contains("\"state\" : \"done\""));
        assertTrue(job.contains("\"target\" : \"gpdedup@127.0.0.1:" + remote.port() + "/gpdedup/dr/cluster1/backups/20261123/20261123101500/\""), job);
        assertTrue(job.contains("\"attempts\" : 1,"), job);
        assertReplicaRestores(remote.port(), b);

        String metrics = primary.metrics();
        assertTrue(metrics.contains("gpdedup_store_replication_jobs_completed_total 1.0"), metrics);
        assertTrue(metrics.contains("gpdedup_store_replication_sent_bytes_total "), metrics);
    }

    @Test
    void aFailedBackupOrOneWithoutAReportIsNotReplicated() throws Exception {
        StoreProcess remote = started(StoreProcess.start(dir.resolve("remote")));
        StoreProcess primary = primary(dir.resolve("primary"), remote.port());
        Path cfg = pluginConfig("repl", primary.port(), remote.port());

        backup(cfg, new Timestamp("20261123101600"), "Failure", 2);
        backup(cfg, new Timestamp("20261123101700"), null, 3);

        assertEquals("[ ]", admin(primary.home(), primary.port(), "replication", "--json").strip(), "no job was queued");
        assertEquals("", admin(remote.home(), remote.port(), "list"), "the remote holds nothing");
        String log = pluginLog();
        assertTrue(log.contains("backup 20261123101600 not replicated: its report says Failure"), log);
        assertTrue(log.contains("[WARNING]:-backup 20261123101700 not replicated: no backup status in "), log);
    }

    @Test
    void withTheRemoteDownJobsAreRetriedSurviveAKillNineOfThePrimaryAndCompleteOnceItIsUp() throws Exception {
        int remotePort = freePort();
        Path primaryHome = dir.resolve("primary");
        StoreProcess primary = primary(primaryHome, remotePort);
        Path cfg = pluginConfig("repl", primary.port(), remotePort);

        Backup first = backup(cfg, new Timestamp("20261123101800"), "Success", 4);
        Backup second = backup(cfg, new Timestamp("20261123101900"), "Success", 5);
        String waiting = awaitJob(primary, "cluster1/backups/20261123/20261123101900/",
                j -> j.contains("\"state\" : \"queued\"") && !j.contains("\"attempts\" : 0,") && !j.contains("\"attempts\" : 1,"));
        assertTrue(waiting.contains("cannot connect to gpdedup-store at 127.0.0.1:" + remotePort), waiting);
        assertTrue(pluginLog().contains("backup 20261123101800 queued for replication"), pluginLog());

        Path queue = primaryHome.resolve(".gpdedup/data/replication.json");
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(queue)));
        ProcessHandle.of(primary.pid()).ifPresent(ProcessHandle::destroyForcibly);
        ProcessHandle.of(primary.pid()).ifPresent(h -> h.onExit().join());

        StoreProcess restarted = started(StoreProcess.start(primaryHome, List.of("--port", "0")));
        started(StoreProcess.start(dir.resolve("remote"), List.of("--port", String.valueOf(remotePort), "--metrics-port", "-1")));
        for (Backup b : List.of(first, second)) {
            String done = awaitJob(restarted, "cluster1/backups/20261123/" + b.timestamp() + "/", j -> j.contains("\"state\" : \"done\""));
            assertFalse(done.contains("\"attempts\" : 1,"), "retried before it was done: " + done);
            assertReplicaRestores(remotePort, b);
        }
        assertFalse(Files.readString(queue).contains("\"remote-password\" : \"gpdedup\""), "finished jobs keep no password");
    }

    /**
     * One backup as gpbackup takes it: setup hooks on every tier, two segments' data and the
     * coordinator's files, then its teardown: config and report written locally and stored, cleanup
     * hooks on every tier, each of which must succeed silently. {@code status} null: no report.
     */
    private Backup backup(Path cfg, Timestamp t, String status, long seed) throws IOException {
        Path root = dir.resolve("cluster");
        BackupDirectory coordinator = BackupDirectory.of(root, -1, t).create();
        List<BackupDirectory> segments = List.of(BackupDirectory.of(root, 0, t).create(), BackupDirectory.of(root, 1, t).create());
        hooks("setup_plugin_for_backup", cfg, coordinator, segments);
        Map<String, byte[]> data = new LinkedHashMap<>();
        for (BackupDirectory s : segments) {
            byte[] bytes = SeededBytes.array(seed * 10 + s.content(), 1_500_000 + 100_000 * s.content());
            plugin.run(new ByteArrayInputStream(bytes), "backup_data", cfg.toString(), s.dataKey(16384)).assertSucceeded();
            data.put(s.dataKey(16384), bytes);
        }
        Map<Path, byte[]> stored = new LinkedHashMap<>();
        List<String> files = new ArrayList<>(List.of("metadata.sql", "toc.yaml", "config.yaml"));
        if (status != null) {
            files.add("report");
        }
        for (String suffix : files) {
            Path local = coordinator.coordinatorFile(suffix);
            String text = suffix.equals("report")
                    ? "Apache Cloudberry Backup Report\n\ntimestamp key:         " + t + "\ndatabase name:         sales\n\nbackup status:         "
                            + status + "\n" + (status.equals("Success") ? "" : "backup error:          ERROR: canceling statement\n")
                    : "-- " + suffix + " of " + t + "\n" + "x".repeat(2000 + (int) seed) + "\n";
            Files.writeString(local, text);
            plugin.run("backup_file", cfg.toString(), local.toString()).assertSucceeded();
            stored.put(local, text.getBytes(StandardCharsets.UTF_8));
        }
        hooks("cleanup_plugin_for_backup", cfg, coordinator, segments);
        return new Backup(t, data, stored);
    }

    private void hooks(String hook, Path cfg, BackupDirectory coordinator, List<BackupDirectory> segments) {
        plugin.run(hook, cfg.toString(), coordinator.path().toString(), "coordinator", "\\\"-1\\\"").assertSucceeded();
        for (BackupDirectory s : segments) {
            plugin.run(hook, cfg.toString(), s.path().toString(), "segment_host").assertSucceeded();
            plugin.run(hook, cfg.toString(), s.path().toString(), "segment", "\\\"" + s.content() + "\\\"").assertSucceeded();
        }
    }

    /** gprestore from the replica: a config whose store and directory are the remote's; every object restores as it was. */
    private void assertReplicaRestores(int remotePort, Backup b) throws IOException {
        Map<String, String> options = new LinkedHashMap<>(storeOptions(remotePort));
        options.put("directory", "dr/cluster1");
        Path replica = ConfigFile.write(dir.resolve("tmp"), b.timestamp(), "replica.yaml",
                ConfigFile.render(Dist.executable("gpbackup_dedup_plugin").toString(), options));
        for (Map.Entry<String, byte[]> d : b.data().entrySet()) {
            CallResult r = plugin.run("restore_data", replica.toString(), d.getKey()).assertSucceeded();
            assertArrayEquals(d.getValue(), r.stdout(), d.getKey());
        }
        for (Map.Entry<Path, byte[]> f : b.files().entrySet()) {
            Files.delete(f.getKey());
            plugin.run("restore_file", replica.toString(), f.getKey().toString()).assertSucceeded();
            assertArrayEquals(f.getValue(), Files.readAllBytes(f.getKey()), f.getKey().toString());
        }
    }

    /**
     * A primary store with retries every second or two that may copy to the store on {@code remotePort}, its config written as
     * an operator would (hash from hash-password).
     */
    private StoreProcess primary(Path home, int remotePort) throws Exception {
        String hash = admin(home, 0, "hash-password").strip();
        Path config = home.resolve(".gpdedup/store.yaml");
        Files.createDirectories(config.getParent());
        Files.writeString(config, "data-dir: data\nmetrics-port: 0\nreplication-retry-seconds: 1\nreplication-retry-max-seconds: 2\n"
                + "replication-targets:\n  dr:\n    host: 127.0.0.1\n    port: " + remotePort + "\n    tls: false\n"
                + "units:\n  " + StoreProcess.DEMO_UNIT + ":\n    users:\n      " + StoreProcess.DEMO_USER + ": " + hash + "\n");
        return started(StoreProcess.start(home, List.of("--port", "0")));
    }

    private StoreProcess started(StoreProcess s) {
        stores.add(s);
        return s;
    }

    private Map<String, String> storeOptions(int port) {
        Map<String, String> o = new LinkedHashMap<>();
        o.put("hostname", "127.0.0.1");
        o.put("port", String.valueOf(port));
        o.put("username", StoreProcess.DEMO_USER);
        o.put("password", StoreProcess.DEMO_PASSWORD);
        o.put("storage_unit", StoreProcess.DEMO_UNIT);
        o.put("directory", "cluster1");
        o.put("log_directory", dir.resolve("logs").toString());
        return o;
    }

    private Path pluginConfig(String name, int primaryPort, int remotePort) {
        Map<String, String> o = storeOptions(primaryPort);
        o.put("replication", "on");
        o.put("remote_hostname", "127.0.0.1");
        o.put("remote_port", String.valueOf(remotePort));
        o.put("remote_username", StoreProcess.DEMO_USER);
        o.put("remote_password", StoreProcess.DEMO_PASSWORD);
        o.put("remote_storage_unit", StoreProcess.DEMO_UNIT);
        o.put("remote_directory", "dr/cluster1");
        return ConfigFile.write(dir.resolve("tmp"), new Timestamp("20261123000000"), name + ".yaml",
                ConfigFile.render(Dist.executable("gpbackup_dedup_plugin").toString(), o));
    }

    /** Polls {@code gpdedup-store replication --json} until the job of {@code source} satisfies {@code condition}; returns its JSON. */
    private String awaitJob(StoreProcess store, String source, Predicate<String> condition) throws Exception {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        String last = "";
        while (System.nanoTime() < deadline) {
            last = admin(store.home(), store.port(), "replication", "--json");
            Matcher m = JOB.matcher(last);
            while (m.find()) {
                String job = m.group();
                if (job.contains("\"source\" : \"" + source + "\"") && condition.test(job)) {
                    return job;
                }
            }
            Thread.sleep(250);
        }
        throw new AssertionError("no job for " + source + " got there within " + PATIENCE + "; last status: " + last);
    }

    private String pluginLog() throws IOException {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> s = Files.list(dir.resolve("logs"))) {
            for (Path p : s.toList()) {
                all.append(Files.readString(p));
            }
        }
        return all.toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /**
     * {@code dist/bin/gpdedup-store COMMAND} with HOME={@code home}, as an admin runs it (demo user and
     * password, port given unless 0); fails the test unless it exits 0. Returns stdout.
     */
    private static String admin(Path home, int port, String... command) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(Dist.executable("gpdedup-store").toString()));
        cmd.addAll(List.of(command));
        if (port != 0) {
            cmd.addAll(List.of("--port", String.valueOf(port)));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        Files.createDirectories(home);
        pb.environment().put("HOME", home.toString());
        Process p = pb.start();
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> drain(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        try (var in = p.getOutputStream()) {
            in.write((StoreProcess.DEMO_PASSWORD + "\n").getBytes(StandardCharsets.UTF_8));
        }
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("gpdedup-store " + cmd + " hung");
        }
        assertEquals(0, p.exitValue(), () -> "gpdedup-store " + cmd + ": " + err.join());
        return out.join();
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
