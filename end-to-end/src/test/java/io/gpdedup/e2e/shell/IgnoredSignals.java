package io.gpdedup.e2e.shell;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Which signals a process ignores (its {@code SigIgn} mask in {@code /proc/PID/status}): a test run
 * started in the background or under {@code nohup} passes ignored SIGINT or SIGHUP on to every
 * process it starts, and a JVM leaves such a signal ignored, so tests that send one must know.
 */
public final class IgnoredSignals {
    public static final int SIGHUP = 1;
    public static final int SIGINT = 2;

    private IgnoredSignals() {
    }

    /** Whether process {@code pid} ignores signal number {@code signal}. */
    public static boolean ignores(long pid, int signal) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(line.substring("SigIgn:".length()).strip(), 16) & (1L << (signal - 1))) != 0;
            }
        }
        return false;
    }
}
