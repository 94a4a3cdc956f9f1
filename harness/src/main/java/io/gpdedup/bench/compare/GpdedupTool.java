package io.gpdedup.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * gpdedup: one {@code gpdedup-store} with the demo config, and the plugin run per backup or
 * restore as gpbackup runs it ({@code backup_data CFG KEY < stream}, {@code restore_data CFG KEY
 * > sink}), with the plugin's defaults (zstd level 1, 64 KiB average chunks) unless told
 * otherwise. Keys follow gpbackup's naming with a new timestamp per backup. The plugin reaches the
 * store through a {@link WireCounter} unless {@code direct}. In the plugin command, {@code {run}}
 * stands for the snapshot name (per-run profile files); with a profile directory, the store
 * records a flight recording per backup through {@code jcmd}.
 */
final class GpdedupTool implements BackupTool {
    static final String DIRECTORY = "bench";
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");
    private static final LocalDateTime FIRST = LocalDateTime.of(2026, 1, 1, 1, 0);

    private final GpdedupCommands commands;
    private final Path dir;
    private final Path logs;
    private final Map<String, String> pluginOptions;
    private final boolean direct;
    private final Path profileDir;
    private final long timeoutSeconds;
    private final Map<String, String> keys = new HashMap<>();
    private StoreProcess store;
    private WireCounter wire;
    private Path config;

    GpdedupTool(GpdedupCommands commands, Path dir, Path logs, Map<String, String> pluginOptions, boolean direct, Path profileDir,
            long timeoutSeconds) {
        this.commands = commands;
        this.dir = dir;
        this.logs = logs;
        this.pluginOptions = Map.copyOf(pluginOptions);
        this.direct = direct;
        this.profileDir = profileDir;
        this.timeoutSeconds = timeoutSeconds;
    }

    @Override
    public String name() {
        return "gpdedup";
    }

    @Override
    public String version() throws IOException {
        List<String> cmd = new ArrayList<>(commands.plugin());
        cmd.add("--version");
        return ToolRun.output(substitute(cmd, "version"), Map.of(), 60).strip().lines().reduce((a, b) -> b).orElse("?");
    }

    @Override
    public String settings() {
        return "plugin defaults" + (pluginOptions.isEmpty() ? "" : " except " + pluginOptions)
                + " (zstd level 1 unless set, chunks 16/64/256 KiB), no encryption; store with the demo config on 127.0.0.1, "
                + (direct ? "plugin connected directly" : "plugin connected through a byte-counting relay")
                + "; " + commands.description();
    }

    @Override
    public void open() throws IOException {
        Files.createDirectories(dir);
        Files.createDirectories(logs);
        store = StoreProcess.start(commands, dir.resolve("home"), logs.resolve("gpdedup-store.log"), timeoutSeconds);
        int port = store.port();
        if (!direct) {
            wire = new WireCounter(port);
            port = wire.port();
        }
        Path pluginLogs = dir.resolve("plugin-logs");
        Files.createDirectories(pluginLogs);
        StringBuilder yaml = new StringBuilder();
        // gpbackup would run this path; here the command comes from GpdedupCommands, so only its form matters.
        yaml.append("executablepath: ").append(Path.of(commands.plugin().get(0)).toAbsolutePath()).append('\n');
        yaml.append("options:\n");
        Map<String, String> options = new java.util.LinkedHashMap<>();
        options.put("hostname", "127.0.0.1");
        options.put("port", String.valueOf(port));
        options.put("username", "gpdedup");
        options.put("password", "gpdedup");
        options.put("storage_unit", "gpdedup");
        options.put("directory", DIRECTORY);
        options.put("log_directory", pluginLogs.toString());
        options.putAll(pluginOptions);
        options.forEach((k, v) -> yaml.append("  ").append(k).append(": \"").append(v.replace("\"", "\\\"")).append("\"\n"));
        config = dir.resolve("gpdedup.yaml");
        Files.writeString(config, yaml);
    }

    /** The gpbackup key of the {@code n}-th backup: its own timestamp, one minute after the previous one. */
    static String key(int n) {
        String ts = FIRST.plusMinutes(n).format(TIMESTAMP);
        return "/data/gpseg0/backups/" + ts.substring(0, 8) + "/" + ts + "/gpbackup_0_" + ts + "_16384";
    }

    @Override
    public StepResult backup(StreamFile stream, String snapshot) throws IOException {
        if (keys.containsKey(snapshot)) {
            throw new IllegalArgumentException("snapshot " + snapshot + " exists");
        }
        String key = key(keys.size());
        keys.put(snapshot, key);
        List<String> cmd = new ArrayList<>(commands.plugin());
        cmd.addAll(List.of("backup_data", config.toString(), key));
        long up0 = wire == null ? -1 : wire.bytesToServer();
        long cpu0 = store.cpuNanos();
        startStoreRecording(snapshot);
        Measured m = ToolRun.run(substitute(cmd, snapshot), Map.of(), stream.path(), logs.resolve("gpdedup-" + snapshot + ".log"),
                timeoutSeconds);
        long cpu1 = store.cpuNanos();
        stopStoreRecording(snapshot);
        long up = -1;
        if (wire != null) {
            wire.awaitIdle(2000);
            up = wire.bytesToServer() - up0;
        }
        String suffix = key.substring(key.indexOf("/backups/") + 1);
        PluginLogLine line = PluginLogLine.last(dir.resolve("plugin-logs"), suffix)
                .orElseThrow(() -> new IOException("the plugin logged no backup_data line for " + suffix + " in " + dir.resolve("plugin-logs")));
        if (line.bytes() != stream.length()) {
            throw new IOException("the plugin stored " + line.bytes() + " bytes of a " + stream.length() + "-byte stream");
        }
        return new StepResult(m, cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0, up, line.sentBytes());
    }

    @Override
    public StepResult restore(String snapshot) throws IOException {
        String key = keys.get(snapshot);
        if (key == null) {
            throw new IllegalArgumentException("no gpdedup backup named " + snapshot);
        }
        List<String> cmd = new ArrayList<>(commands.plugin());
        cmd.addAll(List.of("restore_data", config.toString(), key));
        long cpu0 = store.cpuNanos();
        Measured m = ToolRun.runHashingOutput(substitute(cmd, "restore-" + snapshot), Map.of(),
                logs.resolve("gpdedup-restore-" + snapshot + ".log"), timeoutSeconds);
        long cpu1 = store.cpuNanos();
        return new StepResult(m, cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0, -1, -1);
    }

    @Override
    public long repositoryBytes() throws IOException {
        return ToolRun.diskUsage(store.dataDirectory());
    }

    /** Stored chunk payloads as the store counts them. */
    long physicalBytes() throws IOException {
        return store.physicalBytes();
    }

    private void startStoreRecording(String run) throws IOException {
        if (profileDir != null) {
            ToolRun.output(List.of(jcmd(), String.valueOf(store.pid()), "JFR.start", "name=" + run, "settings=profile"), Map.of(), 60);
        }
    }

    private void stopStoreRecording(String run) throws IOException {
        if (profileDir != null) {
            Files.createDirectories(profileDir);
            ToolRun.output(List.of(jcmd(), String.valueOf(store.pid()), "JFR.stop", "name=" + run,
                    "filename=" + profileDir.resolve(run + "-store.jfr").toAbsolutePath()), Map.of(), 60);
        }
    }

    private String jcmd() {
        return commands.java().resolveSibling("jcmd").toString();
    }

    private static List<String> substitute(List<String> cmd, String run) {
        return cmd.stream().map(s -> s.replace("{run}", run)).toList();
    }

    @Override
    public void close() throws IOException {
        try {
            if (wire != null) {
                wire.close();
            }
        } finally {
            if (store != null) {
                store.close();
            }
        }
    }
}
