package io.gpdedup.bench.compare;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs one command the way a user's shell would ({@code cmd < file > sink}) and times all of it,
 * process start and exit included. Output that is not hashed goes to a log file, never to a pipe
 * the benchmark would have to drain.
 */
final class ToolRun {
    private ToolRun() {
    }

    /** Runs {@code command} with stdin from {@code stdin} (null: empty), stdout and stderr to {@code log}. */
    static Measured run(List<String> command, Map<String, String> env, Path stdin, Path log, long timeoutSeconds) throws IOException {
        return run(command, env, stdin, log, false, timeoutSeconds);
    }

    /** Runs {@code command} and hashes its stdout (the restore sink); stderr goes to {@code log}. */
    static Measured runHashingOutput(List<String> command, Map<String, String> env, Path log, long timeoutSeconds) throws IOException {
        return run(command, env, null, log, true, timeoutSeconds);
    }

    /** Runs a short untimed command and returns its stdout and stderr; fails on a non-zero exit. */
    static String output(List<String> command, Map<String, String> env, long timeoutSeconds) throws IOException {
        ProcessBuilder pb = builder(command, env).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(devNull()));
        Process p = pb.start();
        byte[] out = p.getInputStream().readAllBytes();
        int code = await(p, command, timeoutSeconds);
        String text = new String(out, java.nio.charset.StandardCharsets.UTF_8);
        if (code != 0) {
            throw new IOException(String.join(" ", command) + " exited " + code + ": " + tail(text));
        }
        return text;
    }

    private static Measured run(List<String> command, Map<String, String> env, Path stdin, Path log, boolean hash, long timeoutSeconds)
            throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        ProcessBuilder pb = builder(command, env)
                .redirectInput(ProcessBuilder.Redirect.from(stdin == null ? devNull() : stdin.toFile()))
                .redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        if (!hash) {
            pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        }
        long cpu0 = ProcStat.reapedChildrenCpuNanos();
        long t0 = System.nanoTime();
        Process p = pb.start();
        long outBytes = 0;
        String sha = null;
        if (hash) {
            MessageDigest md = StreamSet.sha256();
            byte[] buf = new byte[1 << 20];
            try (InputStream in = p.getInputStream()) {
                int n;
                while ((n = in.read(buf)) > 0) {
                    md.update(buf, 0, n);
                    outBytes += n;
                }
            }
            sha = HexFormat.of().formatHex(md.digest());
        }
        int code = await(p, command, timeoutSeconds);
        long wall = System.nanoTime() - t0;
        long cpu1 = ProcStat.reapedChildrenCpuNanos();
        if (code != 0) {
            throw new IOException(String.join(" ", command) + " exited " + code + "; its output is in " + log + ":\n"
                    + tail(Files.readString(log)));
        }
        return new Measured(wall, cpu0 < 0 || cpu1 < 0 ? -1 : cpu1 - cpu0, outBytes, sha, log);
    }

    private static ProcessBuilder builder(List<String> command, Map<String, String> env) {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().putAll(env);
        return pb;
    }

    private static int await(Process p, List<String> command, long timeoutSeconds) throws IOException {
        try {
            if (!p.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " did not finish within " + timeoutSeconds + " s");
            }
            return p.exitValue();
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while waiting for " + command.get(0), e);
        }
    }

    private static java.io.File devNull() {
        return new java.io.File("/dev/null");
    }

    static String tail(String text) {
        String[] lines = text.strip().split("\n");
        int from = Math.max(0, lines.length - 15);
        return String.join("\n", java.util.Arrays.copyOfRange(lines, from, lines.length));
    }

    /** Apparent size of everything under {@code dir}, as {@code du -sb} prints it. */
    static long diskUsage(Path dir) throws IOException {
        String out = output(List.of("du", "-sb", dir.toString()), Map.of(), 120);
        return parseDu(out);
    }

    static long parseDu(String out) {
        String first = out.strip().split("\\s+", 2)[0];
        try {
            return Long.parseLong(first);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("unexpected du output: " + out.strip());
        }
    }
}
