package io.gpdedup.pg;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Calls a gpbackup storage plugin executable the way gpbackup and gpbackup_helper do: the
 * executable named by the config's {@code executablepath}, with the config's absolute path, one
 * process per call, data on stdin or stdout, and success only on exit status 0. stderr is kept
 * (its end) for error messages.
 */
public final class PluginRunner {
    private static final int STDERR_KEEP = 8192;

    private final Path config;
    private final Path executable;
    private final Path logDirectory;

    private PluginRunner(Path config, Path executable, Path logDirectory) {
        this.config = config;
        this.executable = executable;
        this.logDirectory = logDirectory;
    }

    /** Reads {@code executablepath} (and {@code options.log_directory}, where the plugin logs) from a plugin config. */
    public static PluginRunner load(Path config) throws IOException {
        Path abs = config.toAbsolutePath().normalize();
        if (!Files.isRegularFile(abs)) {
            throw new IOException("plugin config " + abs + " does not exist");
        }
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(abs.toFile());
        } catch (IOException e) {
            throw new IOException("plugin config " + abs + " is not valid YAML: " + e.getMessage(), e);
        }
        JsonNode exe = root == null ? null : root.get("executablepath");
        if (exe == null || !exe.isTextual() || exe.asText().isBlank()) {
            throw new IOException("plugin config " + abs + " has no executablepath");
        }
        Path executable = Paths.get(exe.asText());
        if (!executable.isAbsolute() || !Files.isExecutable(executable)) {
            throw new IOException("executablepath " + executable + " in " + abs + " is not an absolute path to an executable");
        }
        JsonNode log = root.path("options").get("log_directory");
        return new PluginRunner(abs, executable, log == null || log.isNull() ? null : Paths.get(log.asText()));
    }

    public Path config() {
        return config;
    }

    public Path executable() {
        return executable;
    }

    /** The config's {@code log_directory}, if it names one. */
    public Optional<Path> logDirectory() {
        return Optional.ofNullable(logDirectory);
    }

    /** {@code backup_data CONFIG path}: write the data to {@link Upload#stream()}, then {@link Upload#finish()}. */
    public Upload backupData(String path) throws IOException {
        Call call = start(List.of("backup_data", config.toString(), path), true);
        return new Upload(call);
    }

    /** {@code backup_file CONFIG path}: the plugin reads the local file itself. */
    public void backupFile(Path local) throws IOException {
        start(List.of("backup_file", config.toString(), local.toAbsolutePath().toString()), false).await();
    }

    /** {@code restore_file CONFIG path}: the plugin writes the local file itself. */
    public void restoreFile(Path local) throws IOException {
        start(List.of("restore_file", config.toString(), local.toAbsolutePath().toString()), false).await();
    }

    /** {@code restore_data CONFIG path}: the whole object on {@link Download#stream()}. */
    public Download restoreData(String path) throws IOException {
        return new Download(start(List.of("restore_data", config.toString(), path), false));
    }

    /** {@code restore_data_subset CONFIG path OFFSETS}: only the listed ranges, back to back. */
    public Download restoreDataSubset(String path, Path offsetsFile) throws IOException {
        return new Download(start(List.of("restore_data_subset", config.toString(), path, offsetsFile.toAbsolutePath().toString()), false));
    }

    private Call start(List<String> args, boolean stdin) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(executable.toString());
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd);
        if (!stdin) {
            pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        }
        if (args.get(0).equals("backup_data") || args.get(0).endsWith("_file")) {
            pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        }
        return new Call(args.get(0) + " " + args.get(2), pb.start());
    }

    /** One running plugin process with its stderr drained in the background. */
    private static final class Call {
        private final String what;
        private final Process process;
        private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        private final Thread drain;

        Call(String what, Process process) {
            this.what = what;
            this.process = process;
            this.drain = new Thread(this::drainStderr, "plugin-stderr");
            drain.setDaemon(true);
            drain.start();
        }

        private void drainStderr() {
            byte[] buf = new byte[4096];
            try (InputStream err = process.getErrorStream()) {
                int n;
                while ((n = err.read(buf)) > 0) {
                    synchronized (stderr) {
                        if (stderr.size() < STDERR_KEEP) {
                            stderr.write(buf, 0, Math.min(n, STDERR_KEEP - stderr.size()));
                        }
                    }
                }
            } catch (IOException ignored) {
                // the process is gone; what we have is what there is
            }
        }

        void await() throws IOException {
            try {
                int rc = process.waitFor();
                drain.join(10_000);
                if (rc != 0) {
                    String err;
                    synchronized (stderr) {
                        err = stderr.toString(StandardCharsets.UTF_8).trim();
                    }
                    throw new IOException("plugin " + what + " failed with exit status " + rc + (err.isEmpty() ? "" : ": " + err));
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                kill();
                throw new IOException("interrupted waiting for plugin " + what, e);
            }
        }

        void kill() {
            process.destroy();
            try {
                if (!process.waitFor(30, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    /** A {@code backup_data} call: stream the data, then finish (close stdin, wait for exit 0) or abort. */
    public static final class Upload {
        private final Call call;
        private final OutputStream stream;

        private Upload(Call call) {
            this.call = call;
            this.stream = call.process.getOutputStream();
        }

        public OutputStream stream() {
            return stream;
        }

        public void finish() throws IOException {
            try {
                stream.close();
            } catch (IOException e) {
                // the plugin exited early: its exit status and stderr say why
            }
            call.await();
        }

        /** Stops the plugin without EOF on stdin: a conforming plugin then stores nothing. */
        public void abort() {
            call.kill();
        }

        /**
         * For a write that failed: when the plugin has exited on its own (a broken pipe), the
         * plugin's exit status and stderr, which say why; otherwise {@code e}. Stops the plugin.
         */
        public IOException explain(IOException e) {
            try {
                if (call.process.waitFor(5, TimeUnit.SECONDS) && call.process.exitValue() != 0) {
                    try {
                        call.await();
                    } catch (IOException why) {
                        why.addSuppressed(e);
                        return why;
                    }
                }
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
            }
            call.kill();
            return e;
        }
    }

    /** A {@code restore_data} call: read {@link #stream()}, then {@link #finish()} checks the exit status. */
    public static final class Download {
        private final Call call;

        private Download(Call call) {
            this.call = call;
        }

        public InputStream stream() {
            return call.process.getInputStream();
        }

        public void finish() throws IOException {
            call.await();
        }

        public void abort() {
            call.kill();
        }
    }
}
