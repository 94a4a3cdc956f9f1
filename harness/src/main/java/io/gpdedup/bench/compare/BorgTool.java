package io.gpdedup.bench.compare;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Borg on a local repository with its defaults (lz4 compression, buzhash chunks of 512 KiB..8
 * MiB around 2 MiB). {@code borg init} has no default encryption mode, so one must be named:
 * {@code none} by default here, like gpdedup, which does not encrypt; {@code repokey-blake2}
 * takes its passphrase from {@code BORG_PASSPHRASE}. Cache, config and security directories live
 * beside the repository ({@code BORG_BASE_DIR}).
 */
final class BorgTool implements BackupTool {
    private final Path dir;
    private final Path logs;
    private final String encryption;
    private final String compression;
    private final long timeoutSeconds;
    private final Map<String, String> env = new HashMap<>();

    BorgTool(Path dir, Path logs, String encryption, long timeoutSeconds) {
        this(dir, logs, encryption, null, timeoutSeconds);
    }

    /** @param compression {@code borg create --compression}, or null for borg's default (lz4) */
    BorgTool(Path dir, Path logs, String encryption, String compression, long timeoutSeconds) {
        this.compression = compression;
        this.dir = dir;
        this.logs = logs;
        this.encryption = encryption;
        this.timeoutSeconds = timeoutSeconds;
        env.put("BORG_REPO", dir.resolve("repo").toString());
        env.put("BORG_BASE_DIR", dir.resolve("base").toString());
        env.put("BORG_PASSPHRASE", "gpdedup-bench");
        env.put("BORG_UNKNOWN_UNENCRYPTED_REPO_ACCESS_IS_OK", "yes");
        env.put("BORG_RELOCATED_REPO_ACCESS_IS_OK", "yes");
    }

    @Override
    public String name() {
        return "borg";
    }

    @Override
    public String version() throws IOException {
        return ToolRun.output(List.of("borg", "--version"), env, 60).strip();
    }

    @Override
    public String settings() {
        return (compression == null ? "defaults (lz4, " : "compression " + compression + ", defaults otherwise (")
                + "chunker 19,23,21,4095); borg init -e " + encryption
                + (encryption.equals("none") ? " (no encryption, like gpdedup)" : " with BORG_PASSPHRASE")
                + ", BORG_BASE_DIR beside the repository";
    }

    @Override
    public void open() throws IOException {
        Files.createDirectories(dir.resolve("base"));
        ToolRun.output(List.of("borg", "init", "-e", encryption), env, timeoutSeconds);
    }

    @Override
    public StepResult backup(StreamFile stream, String snapshot) throws IOException {
        List<String> cmd = compression == null ? List.of("borg", "create", "::" + snapshot, "-")
                : List.of("borg", "create", "--compression", compression, "::" + snapshot, "-");
        return StepResult.local(ToolRun.run(cmd, env, stream.path(),
                logs.resolve("borg-" + snapshot + ".log"), timeoutSeconds));
    }

    @Override
    public StepResult restore(String snapshot) throws IOException {
        return StepResult.local(ToolRun.runHashingOutput(List.of("borg", "extract", "--stdout", "::" + snapshot), env,
                logs.resolve("borg-restore-" + snapshot + ".log"), timeoutSeconds));
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
