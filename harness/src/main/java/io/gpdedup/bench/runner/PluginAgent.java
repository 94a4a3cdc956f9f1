package io.gpdedup.bench.runner;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

/**
 * A simulated host's own plugin host agent (docs/agent.md): the plugin launcher hands every call to
 * one long-running JVM per user, installation and agent directory, so giving each simulated host
 * its own directory ({@code GPDEDUP_AGENT_DIR}) gives it its own agent, as each real segment host
 * has, and keeps it apart from anyone else's calls on this machine. Closing removes the directory,
 * which makes the agent stop (it checks its socket every 2 s); one that outlives that is ended.
 */
final class PluginAgent implements AutoCloseable {
    static final String DIR_ENV = "GPDEDUP_AGENT_DIR";
    private final Path dir;
    /** Removes the directory should this JVM be stopped (SIGTERM) before {@link #close}: the agent follows. */
    private final Thread onExit;

    private PluginAgent(Path dir) {
        this.dir = dir;
        this.onExit = new Thread(() -> LiveSession.delete(dir), "plugin-agent-cleanup");
        Runtime.getRuntime().addShutdownHook(onExit);
    }

    /** A fresh private directory with a short path (a Unix socket path has at most 107 bytes). */
    static PluginAgent create() throws IOException {
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "gpda",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        return new PluginAgent(dir);
    }

    Map<String, String> environment() {
        return Map.of(DIR_ENV, dir.toString());
    }

    /** The agent serving this directory, if one runs: the process whose command line names the directory. */
    OptionalLong pid() {
        String needle = dir.toString() + "/";
        try (DirectoryStream<Path> procs = Files.newDirectoryStream(Path.of("/proc"), p -> p.getFileName().toString().matches("\\d+"))) {
            for (Path p : procs) {
                try {
                    String cmd = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                    if (cmd.contains(needle) && cmd.contains("HostAgent")) {
                        return OptionalLong.of(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException | RuntimeException e) {
                    // The process ended while we looked.
                }
            }
        } catch (IOException e) {
            return OptionalLong.empty();
        }
        return OptionalLong.empty();
    }

    /**
     * Starts the agent before the real calls, with one cheap call ({@code plugin_api_version}) and,
     * should that start time out on a busy machine, again: a burst of first calls would otherwise
     * queue behind one start with a short deadline, and fall back to a JVM each.
     */
    void start(Path plugin, Path home) throws IOException, InterruptedException {
        for (int attempt = 0; attempt < 3 && pid().isEmpty(); attempt++) {
            try (DirectoryStream<Path> failed = Files.newDirectoryStream(dir, "*.failed")) {
                for (Path f : failed) {
                    // The launcher skips starting an agent for 60 s after a failed start: try now.
                    Files.deleteIfExists(f);
                }
            }
            ProcessBuilder pb = new ProcessBuilder(plugin.toString(), "plugin_api_version");
            pb.environment().put("HOME", home.toString());
            pb.environment().putAll(environment());
            pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
            pb.redirectError(ProcessBuilder.Redirect.DISCARD);
            Process p = pb.start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroy();
            }
        }
    }

    /** CPU seconds the agent has used so far; 0 when none runs. */
    double cpuSeconds() {
        OptionalLong pid = pid();
        return pid.isPresent() ? CpuMeter.processSeconds(pid.getAsLong()) : 0;
    }

    @Override
    public void close() {
        OptionalLong pid = pid();
        LiveSession.delete(dir);
        try {
            Runtime.getRuntime().removeShutdownHook(onExit);
        } catch (IllegalStateException e) {
            // Already shutting down: the hook does the same.
        }
        if (pid.isEmpty()) {
            return;
        }
        ProcessHandle.of(pid.getAsLong()).ifPresent(h -> {
            try {
                h.onExit().get(6, TimeUnit.SECONDS);
            } catch (Exception e) {
                h.destroy();
            }
        });
    }
}
