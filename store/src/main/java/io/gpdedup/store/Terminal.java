package io.gpdedup.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** What the process's standard streams are connected to, for output meant only for a person at a terminal. */
public final class Terminal {
    private Terminal() {
    }

    /** Whether file descriptor 2 is a terminal (Linux: its /proc link names a tty); false where that cannot be told. */
    public static boolean stderrIsTerminal() {
        try {
            String target = Files.readSymbolicLink(Path.of("/proc/self/fd/2")).toString();
            return target.startsWith("/dev/pts/") || target.startsWith("/dev/tty");
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return false;
        }
    }
}
