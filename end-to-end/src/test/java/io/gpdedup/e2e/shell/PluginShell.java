package io.gpdedup.e2e.shell;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * Calls a plugin the way gpbackup does: one command string {@code "<exe> <command> <args>"} handed
 * to {@code bash -c}, words joined by single spaces and not quoted (gpbackup interpolates paths
 * unquoted; content ids it sends as {@code \"-1\"} are passed in by the caller exactly so). The
 * process gets a minimal environment ({@code PATH=/usr/bin:/bin}, a private {@code HOME}, no
 * {@code JAVA_HOME}) and a working directory of its own, as under ssh or a segment's postgres.
 */
public final class PluginShell {
    public static final String PATH = "/usr/bin:/bin";

    private final Path executable;
    private final Path workDir;
    private final Path home;
    private final Map<String, String> environment;

    public PluginShell(Path executable, Path workDir, Path home) {
        this(executable, workDir, home, Map.of());
    }

    /**
     * With variables added to the minimal environment, e.g. {@code GPDEDUP_AGENT_DIR}, so a test's
     * host agent (and its log) is its own.
     */
    public PluginShell(Path executable, Path workDir, Path home, Map<String, String> environment) {
        this.executable = executable;
        this.workDir = workDir;
        this.home = home;
        this.environment = Map.copyOf(environment);
        requireShellSafe(executable.toString());
        requireShellSafe(workDir.toString());
    }

    public Path executable() {
        return executable;
    }

    /** The string gpbackup would give {@code bash -c}. */
    public String commandLine(List<String> words) {
        StringBuilder sb = new StringBuilder(executable.toString());
        for (String w : words) {
            sb.append(' ').append(w);
        }
        return sb.toString();
    }

    /** Runs to completion with stdin at EOF; stdout and stderr captured. */
    public CallResult run(String... words) {
        return start(null, words).finish(null);
    }

    /** Runs to completion feeding {@code stdin} (then EOF); stdout and stderr captured. */
    public CallResult run(InputStream stdin, String... words) {
        return start(null, words).finish(stdin);
    }

    /** Runs to completion with stdout streamed into {@code stdout} instead of memory (for large restores). */
    public CallResult stream(InputStream stdin, OutputStream stdout, String... words) {
        return start(stdout, words).finish(stdin);
    }

    /** Starts a call and leaves stdin open, for tests that write or kill mid-stream. */
    public RunningCall start(String... words) {
        return start(null, words);
    }

    /**
     * The process a call runs as ({@code bash -c} with this shell's environment and working
     * directory), for tests that handle its pipes themselves, e.g. a reader that pauses.
     */
    public ProcessBuilder command(String... words) {
        ProcessBuilder pb = new ProcessBuilder("bash", "-c", commandLine(Arrays.asList(words)));
        Map<String, String> env = pb.environment();
        env.clear();
        env.put("PATH", PATH);
        env.put("HOME", home.toString());
        env.putAll(environment);
        pb.directory(workDir.toFile());
        return pb;
    }

    private RunningCall start(OutputStream stdoutSink, String... words) {
        String commandLine = commandLine(Arrays.asList(words));
        try {
            return new RunningCall(commandLine, command(words).start(), stdoutSink);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start bash -c \"" + commandLine + "\"", e);
        }
    }

    /** gpbackup cannot quote paths, so the suite must never produce one bash would split or expand. */
    public static void requireShellSafe(String path) {
        if (!path.matches("[A-Za-z0-9/._+-]+")) {
            throw new IllegalArgumentException("path '" + path + "' would not survive gpbackup's unquoted bash command line");
        }
    }
}
