package io.gpdedup.tooling;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@code gpdedup-store serve} and waits until it listens, for the end-to-end tests and the
 * benchmarks alike: the store is told to write its port to a file of the caller's
 * ({@code serve --port-file}), which it does once it listens, and the port is read from there rather
 * than from its output. Its standard output is discarded unless the caller redirected it.
 */
public final class StoreLauncher {
    private StoreLauncher() {
    }

    /** A store process that listens on {@code port}. */
    public record Started(Process process, int port) {
    }

    /**
     * @param serve the store's command line up to its {@code serve} options; {@code --port-file} is added
     * @param portFile where the store writes its port (replaced if it exists)
     * @param log the file the caller sends the store's standard error to, quoted when it does not start
     * @throws IOException when the store exits or does not listen within {@code wait}
     */
    public static Started start(ProcessBuilder serve, Path portFile, Duration wait, Path log) throws IOException, InterruptedException {
        Files.deleteIfExists(portFile);
        List<String> command = new ArrayList<>(serve.command());
        command.addAll(List.of("--port-file", portFile.toString()));
        serve.command(command);
        if (serve.redirectOutput() == ProcessBuilder.Redirect.PIPE) {
            serve.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        }
        Process p = serve.start();
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Integer port = read(portFile);
            if (port != null) {
                return new Started(p, port);
            }
            if (p.waitFor(50, TimeUnit.MILLISECONDS)) {
                throw new IOException("gpdedup-store exited with status " + p.exitValue() + " before it listened: " + tail(log));
            }
            if (System.nanoTime() > deadline) {
                p.destroyForcibly().waitFor();
                throw new IOException("gpdedup-store did not listen within " + wait.toSeconds() + " s: " + tail(log));
            }
        }
    }

    /** The port, or null while the file is not there (the store writes it whole, with a rename). */
    private static Integer read(Path portFile) throws IOException {
        try {
            return Integer.valueOf(Files.readString(portFile, StandardCharsets.US_ASCII).strip());
        } catch (NoSuchFileException e) {
            return null;
        }
    }

    private static String tail(Path log) {
        if (log == null) {
            return "(no log)";
        }
        try {
            String text = Files.readString(log, StandardCharsets.UTF_8).strip();
            return text.length() <= 4000 ? text : "..." + text.substring(text.length() - 4000);
        } catch (IOException e) {
            return "(its log " + log + " cannot be read: " + e.getMessage() + ")";
        }
    }
}
