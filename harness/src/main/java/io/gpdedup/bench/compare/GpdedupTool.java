package io.gpdedup.bench.compare;

import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.RemoteName;
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
 * otherwise. Keys follow gpbackup's naming with a new timestamp per backup.
 *
 * <p>The installed plugin is a native launcher that hands each call to a host agent JVM, which the
 * first call starts (docs/agent.md). Each instance gives the agent a directory of its own, so the
 * first backup pays the agent's start as a user's first call does, no agent of anyone else serves
 * these calls, and the agent's CPU can be read from /proc and added to the launcher's. The bytes
 * a backup sent are the store's own count of what it read from its connections (its metrics), so
 * the plugin talks to the store as in production, with no relay taking CPU beside it. The agent is
 * stopped on close. With a profile directory, the store and the agent record a flight recording per
 * step through {@code jcmd}; the agent is then started before the first step, so that it is recorded.
 */
final class GpdedupTool implements BackupTool {
    /** Where a store on S3 keeps its units: an existing bucket of an S3 server, under a prefix of this run's own. */
    record Bucket(String endpoint, String name, String prefix) {
    }

    static final String DIRECTORY = "bench";
    private static final DateTimeFormatter TIMESTAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");
    private static final LocalDateTime FIRST = LocalDateTime.of(2026, 1, 1, 1, 0);

    private final GpdedupCommands commands;
    private final Path dir;
    private final Path logs;
    private final Map<String, String> pluginOptions;
    private final Path profileDir;
    private final long timeoutSeconds;
    private final String agentMode;
    private final Map<String, String> keys = new HashMap<>();
    private final Bucket bucket;
    private boolean encrypted;
    private Path agentDir;
    private StreamFile warmUp;
    private ComparedStore store;
    private Path config;

    /**
     * @param agentMode {@code GPDEDUP_AGENT} for the plugin calls ({@code on}, {@code off}, {@code require}), or null for
     *     the launcher's default
     */
    GpdedupTool(GpdedupCommands commands, Path dir, Path logs, Map<String, String> pluginOptions, Path profileDir,
            String agentMode, long timeoutSeconds) {
        this(commands, dir, logs, pluginOptions, profileDir, agentMode, timeoutSeconds, null);
    }

    /** As above, the store keeping its units in {@code bucket} when it is not null. */
    GpdedupTool(GpdedupCommands commands, Path dir, Path logs, Map<String, String> pluginOptions, Path profileDir,
            String agentMode, long timeoutSeconds, Bucket bucket) {
        this.bucket = bucket;
        this.agentMode = agentMode;
        this.commands = commands;
        this.dir = dir;
        this.logs = logs;
        this.pluginOptions = Map.copyOf(pluginOptions);
        this.profileDir = profileDir;
        this.timeoutSeconds = timeoutSeconds;
    }

    /**
     * Makes {@link #open} back {@code stream} up, then wait for the store's recompression, before
     * anything is measured: the store and the host agent then start the round as a store in service
     * does, with their JVMs started and their code compiled. The stream must share no chunk with the
     * measured ones; what it stores is in the repository's size before the first step.
     */
    GpdedupTool warmingUpWith(StreamFile stream) {
        this.warmUp = stream;
        return this;
    }

    /** Makes the store encrypt its units at rest under a key of this tool's own (docs/store.md, "Encryption at rest"). */
    GpdedupTool encrypted() {
        this.encrypted = true;
        return this;
    }

    @Override
    public String name() {
        return bucket != null ? Report.GPDEDUP_S3 : encrypted ? Report.GPDEDUP_ENCRYPTED : Report.GPDEDUP;
    }

    @Override
    public String version() throws IOException {
        List<String> cmd = new ArrayList<>(commands.plugin());
        cmd.add("--version");
        return ToolRun.output(cmd, Map.of("GPDEDUP_AGENT", "off"), 60).strip().lines().reduce((a, b) -> b).orElse("?");
    }

    @Override
    public String settings() {
        return "plugin defaults" + (pluginOptions.isEmpty() ? "" : " except " + pluginOptions)
                + " (zstd level 1 unless set, chunks 16/64/256 KiB), no encryption in the plugin; store with the demo unit on 127.0.0.1, recompressing "
                + ComparedStore.QUIET_SECONDS + " s after a backup (default 30) at its default level, each backup's repository size taken once that is done, "
                + "bytes sent on the wire as the store counted them"
                + "; GPDEDUP_AGENT " + (agentMode == null ? "unset (launcher default: on)" : agentMode)
                + ", a host agent of its own per round, started by the first call; " + commands.description()
                + (warmUp == null ? "" : "; before the first step, store and agent warmed by a backup of " + warmUp.length() / (1 << 20)
                    + " MiB of unrelated rows (not counted)")
                + (encrypted ? "; units encrypted at rest (AES-256-GCM, encryption.key-file)" : "")
                + (bucket == null ? "" : "; units in bucket " + bucket.name() + " at " + bucket.endpoint() + " (prefix " + bucket.prefix()
                    + "), cache 1 GiB; its repository size is the store's physical bytes");
    }

    @Override
    public void open() throws IOException {
        Files.createDirectories(dir);
        Files.createDirectories(logs);
        ComparedStore.writeConfig(dir.resolve("home"), bucket, encrypted);
        store = ComparedStore.start(commands, dir.resolve("home"), logs.resolve("gpdedup-store-" + name() + ".log"), timeoutSeconds);
        int port = store.port();
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
        // Short: the agent's socket path must fit in sun_path (108 bytes).
        agentDir = Files.createTempDirectory(Path.of("/tmp"), "gpdb-agent-");
        if (profileDir != null) {
            List<String> cmd = new ArrayList<>(commands.plugin());
            cmd.add("plugin_api_version");
            ToolRun.output(cmd, pluginEnv(), 60);
        }
        if (warmUp != null) {
            List<String> cmd = new ArrayList<>(commands.plugin());
            cmd.addAll(List.of("backup_data", config.toString(), warmUpKey()));
            ToolRun.run(cmd, pluginEnv(), warmUp.path(), logs.resolve("gpdedup-warm-up.log"), timeoutSeconds);
            store.awaitRecompression(timeoutSeconds);
        }
    }

    /** The warm-up's key: a timestamp before every measured backup's. */
    static String warmUpKey() {
        return key(-1);
    }

    private Map<String, String> pluginEnv() {
        Map<String, String> env = new HashMap<>();
        env.put("GPDEDUP_AGENT_DIR", agentDir.toString());
        if (agentMode != null) {
            env.put("GPDEDUP_AGENT", agentMode);
        }
        return env;
    }

    private static final java.util.regex.Pattern AGENT = java.util.regex.Pattern.compile("host agent (\\d+): serving");

    /** The pid of the live agent serving this instance's calls, or -1. */
    long agentPid() throws IOException {
        if (agentDir == null || !Files.isDirectory(agentDir)) {
            return -1;
        }
        long pid = -1;
        try (java.util.stream.Stream<Path> logsOfAgents = Files.list(agentDir)) {
            for (Path log : logsOfAgents.filter(p -> p.toString().endsWith(".log")).toList()) {
                java.util.regex.Matcher m = AGENT.matcher(Files.readString(log));
                while (m.find()) {
                    pid = Long.parseLong(m.group(1));
                }
            }
        }
        long found = pid;
        return found > 0 && ProcessHandle.of(found).map(ProcessHandle::isAlive).orElse(false) ? found : -1;
    }

    /** Runs one plugin call and adds the agent's CPU over the call to the launcher's. */
    private Measured call(String run, java.util.function.Supplier<Measured> launch) throws IOException {
        long before = agentPid();
        long cpu0 = before > 0 ? ProcStat.cpuNanos(before) : 0;
        Measured m;
        try {
            m = launch.get();
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        }
        long after = agentPid();
        if (after > 0) {
            long agentCpu = ProcStat.cpuNanos(after) - (after == before ? cpu0 : 0);
            m = new Measured(m.wallNanos(), m.cpuNanos() < 0 ? -1 : m.cpuNanos() + agentCpu, m.outBytes(), m.outSha256(), m.log());
        } else if (!"off".equals(agentMode)) {
            System.err.println("  note: no host agent served gpdedup's " + run + " call (it ran in-process)");
        }
        return m;
    }

    /** The gpbackup key of the {@code n}-th backup: its own timestamp, one minute after the previous one. */
    static String key(int n) {
        String ts = FIRST.plusMinutes(n).format(TIMESTAMP);
        return "/data/gpseg0/" + new RemoteName(BackupTimestamp.parse(ts), "gpbackup_0_" + ts + "_16384").path();
    }

    @Override
    public StepResult backup(StreamFile stream, String snapshot) throws IOException {
        String key;
        // Concurrent backups (ConcurrentBackups) each take a key of their own.
        synchronized (keys) {
            if (keys.containsKey(snapshot)) {
                throw new IllegalArgumentException("snapshot " + snapshot + " exists");
            }
            key = key(keys.size());
            keys.put(snapshot, key);
        }
        List<String> cmd = new ArrayList<>(commands.plugin());
        cmd.addAll(List.of("backup_data", config.toString(), key));
        long up0 = store.receivedBytes();
        long cpu0 = store.cpuNanos();
        Map<String, Long> req0 = store.bucketRequests();
        startRecording(snapshot);
        Measured m = call(snapshot, () -> unchecked(() -> ToolRun.run(cmd, pluginEnv(), stream.path(),
                logs.resolve("gpdedup-" + snapshot + ".log"), timeoutSeconds)));
        long cpu1 = store.cpuNanos();
        stopRecording(snapshot);
        // The plugin exits only after the store has answered its commit, its last request: the store has read every byte it sent.
        long up1 = store.receivedBytes();
        long up = up0 < 0 || up1 < 0 ? -1 : up1 - up0;
        String suffix = RemoteName.fromLocalPath(key).path();
        PluginLogLine line = PluginLogLine.last(dir.resolve("plugin-logs"), suffix)
                .orElseThrow(() -> new IOException("the plugin logged no backup_data line for " + suffix + " in " + dir.resolve("plugin-logs")));
        if (line.bytes() != stream.length()) {
            throw new IOException("the plugin stored " + line.bytes() + " bytes of a " + stream.length() + "-byte stream");
        }
        return new StepResult(m, cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0, up, line.sentBytes(), since(req0));
    }

    @Override
    public StepResult restore(String snapshot) throws IOException {
        String key;
        synchronized (keys) {
            key = keys.get(snapshot);
        }
        if (key == null) {
            throw new IllegalArgumentException("no gpdedup backup named " + snapshot);
        }
        List<String> cmd = new ArrayList<>(commands.plugin());
        cmd.addAll(List.of("restore_data", config.toString(), key));
        long cpu0 = store.cpuNanos();
        Map<String, Long> req0 = store.bucketRequests();
        startRecording("restore-" + snapshot);
        Measured m = call("restore", () -> unchecked(() -> ToolRun.runHashingOutput(cmd, pluginEnv(),
                logs.resolve("gpdedup-restore-" + snapshot + ".log"), timeoutSeconds)));
        long cpu1 = store.cpuNanos();
        stopRecording("restore-" + snapshot);
        return new StepResult(m, cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0, -1, -1, since(req0));
    }

    /** Bucket requests since {@code before}, by operation. */
    private Map<String, Long> since(Map<String, Long> before) throws IOException {
        Map<String, Long> out = new HashMap<>();
        store.bucketRequests().forEach((op, n) -> out.put(op, n - before.getOrDefault(op, 0L)));
        return out;
    }

    @Override
    public long serviceCpuNanos() throws IOException {
        long agent = agentPid();
        long agentCpu = agent > 0 ? ProcStat.cpuNanos(agent) : 0;
        long storeCpu = store.cpuNanos();
        return storeCpu < 0 || agentCpu < 0 ? -1 : storeCpu + agentCpu;
    }

    @Override
    public Quiet awaitQuiet() throws IOException {
        long cpu0 = store.cpuNanos();
        long t0 = System.nanoTime();
        store.awaitRecompression(timeoutSeconds);
        return new Quiet(store.cpuNanos() - cpu0, System.nanoTime() - t0);
    }

    @Override
    public long repositoryBytes() throws IOException {
        return bucket != null ? store.physicalBytes() : ToolRun.diskUsage(store.dataDirectory());
    }

    /** Stored chunk payloads as the store counts them. */
    long physicalBytes() throws IOException {
        return store.physicalBytes();
    }

    private interface IoSupplier<T> {
        T get() throws IOException;
    }

    private static <T> T unchecked(IoSupplier<T> s) {
        try {
            return s.get();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void startRecording(String run) throws IOException {
        if (profileDir != null) {
            for (long pid : recorded()) {
                ToolRun.output(List.of(jcmd(), String.valueOf(pid), "JFR.start", "name=" + run, "settings=profile",
                        CompareCommand.CPU_TIME_SAMPLES), Map.of(), 60);
            }
        }
    }

    private void stopRecording(String run) throws IOException {
        if (profileDir != null) {
            Files.createDirectories(profileDir);
            long[] pids = recorded();
            for (int i = 0; i < pids.length; i++) {
                String file = run + (i == 0 ? "-store.jfr" : "-plugin.jfr");
                ToolRun.output(List.of(jcmd(), String.valueOf(pids[i]), "JFR.stop", "name=" + run,
                        "filename=" + profileDir.resolve(file).toAbsolutePath()), Map.of(), 60);
            }
        }
    }

    /** The store, then the agent when there is one. */
    private long[] recorded() throws IOException {
        long agent = agentPid();
        return agent > 0 ? new long[] {store.pid(), agent} : new long[] {store.pid()};
    }

    private String jcmd() {
        return commands.java().resolveSibling("jcmd").toString();
    }

    @Override
    public void close() throws IOException {
        try {
            stopAgent();
        } finally {
            if (store != null) {
                store.close();
            }
        }
    }

    private void stopAgent() throws IOException {
        long pid = agentPid();
        if (pid > 0) {
            // Only the agent this instance's calls started, by its pid: SIGTERM, as docs/agent.md allows.
            ProcessHandle.of(pid).ifPresent(h -> {
                h.destroy();
                try {
                    h.onExit().get(30, java.util.concurrent.TimeUnit.SECONDS);
                } catch (Exception e) {
                    System.err.println("host agent " + pid + " did not stop within 30 s of SIGTERM: " + e);
                }
            });
        }
        if (agentDir != null) {
            try (java.util.stream.Stream<Path> s = Files.list(agentDir)) {
                for (Path log : s.filter(p -> p.toString().endsWith(".log")).toList()) {
                    Files.copy(log, logs.resolve("gpdedup-agent-" + dir.getParent().getFileName() + ".log"),
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
            try (java.util.stream.Stream<Path> s = Files.walk(agentDir)) {
                for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
