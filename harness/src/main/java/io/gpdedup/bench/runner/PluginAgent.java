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

    private PluginAgent(Path dir) {
        this.dir = dir;
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

    /** CPU seconds the agent has used so far; 0 when none runs. */
    double cpuSeconds() {
        OptionalLong pid = pid();
        return pid.isPresent() ? CpuMeter.processSeconds(pid.getAsLong()) : 0;
    }

    @Override
    public void close() {
        OptionalLong pid = pid();
        LiveSession.delete(dir);
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
