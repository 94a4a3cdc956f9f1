package io.gpdedup.e2e.reliability;

import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.shell.PluginShell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

/**
 * A real {@code dist/bin/gpdedup-store} with the test's own config lines, one that can be killed and
 * started again on the same port and data, and {@code gpbackup_dedup_plugin} calls (dist's, or another installation's) through
 * bash, through a host agent of the test's own ({@code GPDEDUP_AGENT=require}) or without one
 * ({@code off}).
 */
final class StoreAndPlugin implements AutoCloseable {
    private static final String PASSWORD = "not-the-demo-one";

    private final Path dir;
    private final Path agentDir;
    private final PluginShell plugin;
    private volatile StoreProcess store;

    private StoreAndPlugin(Path dir, Path agentDir, PluginShell plugin, StoreProcess store) {
        this.dir = dir;
        this.agentDir = agentDir;
        this.plugin = plugin;
        this.store = store;
    }

    /** {@code storeSettings}: whole lines of the store's config; {@code agent}: GPDEDUP_AGENT for every call. */
    static StoreAndPlugin start(Path dir, String storeSettings, String agent) throws IOException, InterruptedException {
        return start(dir, storeSettings, agent, Dist.executable(DedupFixture.EXECUTABLE));
    }

    /** As above, the plugin calls made with {@code executable} (e.g. from {@link Dist#copyWithAgentFlags}). */
    static StoreAndPlugin start(Path dir, String storeSettings, String agent, Path executable) throws IOException, InterruptedException {
        Path home = dir.resolve("store-home");
        StoreProcess.writeConfig(home, storeSettings, PASSWORD, 1_000);
        Path agentDir = Files.createDirectories(dir.resolve("agent"));
        Files.setPosixFilePermissions(agentDir, PosixFilePermissions.fromString("rwx------"));
        PluginShell plugin = new PluginShell(executable, Files.createDirectories(dir.resolve("cwd")), Files.createDirectories(dir.resolve("home")),
                Map.of("GPDEDUP_AGENT_DIR", agentDir.toString(), "GPDEDUP_AGENT", agent));
        return new StoreAndPlugin(dir, agentDir, plugin, StoreProcess.start(home));
    }

    PluginShell plugin() {
        return plugin;
    }

    int storePort() {
        return store.port();
    }

    /** A plugin config for the store at {@code port} (the store's own, or a relay's) with {@code extraOptions} lines. */
    String config(String name, int port, String extraOptions) throws IOException {
        return DedupFixture.writeConfig(dir.resolve(name + ".yaml"), port, PASSWORD, dir.resolve("logs"), extraOptions).toString();
    }

    /** The key of a table's data file on segment {@code content}, as gpbackup names it. */
    String key(int content, Timestamp t, int oid) {
        return BackupDirectory.of(dir, content, t).dataKey(oid);
    }

    void killStore() throws InterruptedException {
        store.kill();
    }

    /** Starts the store again on the same port and data, after {@link #killStore}. */
    void restartStore() throws IOException, InterruptedException {
        store = store.restart();
    }

    /** The lines of the plugin's logs (all its calls so far) that contain {@code text}. */
    List<String> pluginLogLines(String text) throws IOException {
        return PluginLogs.lines(dir.resolve("logs"), text);
    }

    @Override
    public void close() throws Exception {
        try {
            HostAgents.kill(agentDir);
        } finally {
            store.close();
        }
    }
}
