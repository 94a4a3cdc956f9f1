package io.gpdedup.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * restic on a local repository with its defaults (repository format of its {@code init}, which
 * is 2 with automatic zstd compression since 0.14; content-defined chunks of 512 KiB..8 MiB;
 * encryption always on). The password comes from {@code RESTIC_PASSWORD} and the cache lives
 * beside the repository, so nothing is asked and nothing touches the user's home.
 */
final class ResticTool implements BackupTool {
    static final String STDIN_FILENAME = "orders.copy";
    private static final Pattern SAVED = Pattern.compile("snapshot ([0-9a-f]+) saved");

    private final Path dir;
    private final Path logs;
    private final long timeoutSeconds;
    private final Map<String, String> env;
    private final Map<String, String> snapshots = new java.util.HashMap<>();

    ResticTool(Path dir, Path logs, long timeoutSeconds) {
        this.dir = dir;
        this.logs = logs;
        this.timeoutSeconds = timeoutSeconds;
        this.env = Map.of("RESTIC_REPOSITORY", dir.resolve("repo").toString(), "RESTIC_PASSWORD", "gpdedup-bench",
                "XDG_CACHE_HOME", dir.resolve("cache").toString(), "HOME", dir.resolve("home").toString());
    }

    @Override
    public String name() {
        return "restic";
    }

    @Override
    public String version() throws IOException {
        return ToolRun.output(List.of("restic", "version"), env, 60).strip();
    }

    @Override
    public String settings() {
        return "defaults (repository v2, compression auto, AES-256 encryption); RESTIC_PASSWORD set, cache dir beside the repository";
    }

    @Override
    public void open() throws IOException {
        Files.createDirectories(dir.resolve("home"));
        ToolRun.output(List.of("restic", "init"), env, timeoutSeconds);
    }

    @Override
    public StepResult backup(StreamFile stream, String snapshot) throws IOException {
        Path log = logs.resolve("restic-" + snapshot + ".log");
        Measured m = ToolRun.run(List.of("restic", "backup", "--stdin", "--stdin-filename", STDIN_FILENAME), env, stream.path(), log,
                timeoutSeconds);
        Matcher id = SAVED.matcher(Files.readString(log));
        String last = null;
        while (id.find()) {
            last = id.group(1);
        }
        if (last == null) {
            throw new IOException("restic backup printed no 'snapshot ... saved' line; see " + log);
        }
        snapshots.put(snapshot, last);
        return StepResult.local(m);
    }

    @Override
    public StepResult restore(String snapshot) throws IOException {
        String id = snapshots.get(snapshot);
        if (id == null) {
            throw new IllegalArgumentException("no restic snapshot named " + snapshot);
        }
        return StepResult.local(ToolRun.runHashingOutput(List.of("restic", "dump", id, "/" + STDIN_FILENAME), env,
                logs.resolve("restic-restore-" + snapshot + ".log"), timeoutSeconds));
    }

    @Override
    public long repositoryBytes() throws IOException {
        return ToolRun.diskUsage(dir.resolve("repo"));
    }

    @Override
    public void close() {
        // Nothing runs between commands.
    }
}
