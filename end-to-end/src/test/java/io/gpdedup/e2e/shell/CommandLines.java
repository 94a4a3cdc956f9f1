package io.gpdedup.e2e.shell;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A process's whole command line, read from {@code /proc/PID/cmdline}: {@code ProcessHandle.Info}
 * keeps only its first page (4,096 bytes), which a JVM's class path outgrows when the installation
 * lives under a longer directory, so a main class or argument after it would go unseen.
 */
public final class CommandLines {
    private CommandLines() {
    }

    /** The arguments of process {@code pid} joined by spaces; empty when it is gone or unreadable. */
    public static Optional<String> of(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc/" + pid + "/cmdline"));
            int end = raw.length > 0 && raw[raw.length - 1] == 0 ? raw.length - 1 : raw.length;
            String line = new String(raw, 0, end, StandardCharsets.UTF_8).replace('\0', ' ');
            return line.isEmpty() ? Optional.empty() : Optional.of(line);
        } catch (IOException gone) {
            return Optional.empty();
        }
    }
}
