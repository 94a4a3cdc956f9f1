package io.gpdedup.e2e.reliability;

import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.testsupport.S3Server;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Two {@code dist/bin/gpdedup-store} processes on one S3Proxy bucket with the same config, each
 * with its own home and data directory: {@code holder} serves unit {@link StoreProcess#UNIT}, the
 * other runs with {@code --standby}; and {@code gpbackup_dedup_plugin} calls from dist/bin, through
 * a host agent of the test's own or without one, with configs that list either or both stores in
 * {@code hostname}.
 */
final class StandbyPair implements AutoCloseable {
    static final int LEASE_SECONDS = 6;
    private static final String PASSWORD = "standby-pair-password";

    private final Path dir;
    private final Path agentDir;
    private final PluginShell plugin;
    private final StoreProcess holder;
    private StoreProcess standby;

    private StandbyPair(Path dir, Path agentDir, PluginShell plugin, StoreProcess holder) {
        this.dir = dir;
        this.agentDir = agentDir;
        this.plugin = plugin;
        this.holder = holder;
    }

    /** {@code agent}: GPDEDUP_AGENT for every plugin call ({@code require}: through a host agent; {@code off}: none). */
    static StandbyPair start(Path dir, String agent) throws IOException, InterruptedException {
        S3Server s3 = S3Server.shared();
        String bucket = s3.newBucket("inflight");
        Path homeA = dir.resolve("store-a");
        StoreProcess.writeConfig(homeA, "listen-address: 127.0.0.1\ndata-dir: data\nstorage:\n  type: s3\n  endpoint: " + s3.endpoint()
                + "\n  region: " + S3Server.REGION + "\n  bucket: " + bucket + "\n  prefix: site1/\n  path-style: true\n  cache-bytes: 64MiB\n"
                + "  lease-seconds: " + LEASE_SECONDS + "\n", PASSWORD, 1_000);
        Path homeB = dir.resolve("store-b");
        Files.createDirectories(homeB.resolve(".gpdedup"));
        Files.copy(homeA.resolve(".gpdedup").resolve("store.yaml"), homeB.resolve(".gpdedup").resolve("store.yaml"));

        Path agentDir = Files.createDirectories(dir.resolve("agent"));
        Files.setPosixFilePermissions(agentDir, PosixFilePermissions.fromString("rwx------"));
        PluginShell plugin = new PluginShell(Dist.executable(DedupFixture.EXECUTABLE), Files.createDirectories(dir.resolve("cwd")),
                Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString(), "GPDEDUP_AGENT", agent));
        StandbyPair pair = new StandbyPair(dir, agentDir, plugin, StoreProcess.start(homeA, List.of("--port", "0", "--metrics-port", "-1")));
        try {
            pair.standby = StoreProcess.start(homeB, List.of("--port", "0", "--metrics-port", "-1", "--standby"));
        } catch (IOException | RuntimeException e) {
            pair.holder.close();
            throw e;
        }
        return pair;
    }

    PluginShell plugin() {
        return plugin;
    }

    int holderPort() {
        return holder.port();
    }

    int standbyPort() {
        return standby.port();
    }

    /** SIGKILL of the holder: its lease is left to lapse. */
    void killHolder() throws InterruptedException {
        holder.kill();
    }

    /**
     * A plugin config named {@code name} whose {@code hostname} lists the stores at {@code ports}
     * in that order, with {@code reconnect_timeout_seconds} {@code reconnectSeconds}.
     */
    String config(String name, int reconnectSeconds, int... ports) throws IOException {
        return config(name, reconnectSeconds, "", ports);
    }

    /** As {@link #config(String, int, int...)}, with {@code extra} options (lines indented by two spaces). */
    String config(String name, int reconnectSeconds, String extra, int... ports) throws IOException {
        List<String> entries = new ArrayList<>();
        for (int p : ports) {
            entries.add("127.0.0.1:" + p);
        }
        Path p = DedupFixture.writeConfig(dir.resolve(name + ".yaml"), ports[0], PASSWORD, dir.resolve("logs"),
                "  reconnect_timeout_seconds: \"" + reconnectSeconds + "\"\n" + extra);
        String text = Files.readString(p);
        if (!text.contains("  hostname: 127.0.0.1\n")) {
            throw new IllegalStateException("the plugin config has no plain hostname line: " + text);
        }
        Files.writeString(p, text.replace("  hostname: 127.0.0.1\n", "  hostname: \"" + String.join(",", entries) + "\"\n"));
        return p.toString();
    }

    /** The key of a table's data file on segment {@code content}, as gpbackup names it. */
    String key(int content, Timestamp t, int oid) {
        return BackupDirectory.of(dir, content, t).dataKey(oid);
    }

    /** The lines of the plugin's logs (all its calls so far) that contain {@code text}. */
    List<String> pluginLogLines(String text) throws IOException {
        return PluginLogs.lines(dir.resolve("logs"), text);
    }

    /** The standby's log, for its take-over line. */
    String standbyLog() throws IOException {
        return Files.readString(standby.home().resolve("store.err"));
    }

    @Override
    public void close() throws Exception {
        try {
            HostAgents.kill(agentDir);
        } finally {
            try {
                holder.close();
            } finally {
                standby.close();
            }
        }
    }
}
