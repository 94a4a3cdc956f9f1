package io.gpdedup.plugin.api;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Creates the hidden temporary file a write goes to before its atomic rename. Files.createTempFile
 * would seed a SecureRandom, which costs milliseconds on every short plugin call; pid, time and a
 * counter are unique enough with CREATE_NEW as the arbiter.
 */
public final class SiblingFile {
    private static final AtomicLong COUNTER = new AtomicLong();

    private SiblingFile() {
    }

    /** A new empty file {@code .<name>.<unique>.<suffix>} in {@code target}'s directory. */
    public static Path createFor(Path target, String suffix) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        String base = "." + target.getFileName() + "." + ProcessHandle.current().pid() + "-" + System.nanoTime() + "-";
        for (int attempt = 0; ; attempt++) {
            Path tmp = dir.resolve(base + COUNTER.incrementAndGet() + "." + suffix);
            try {
                return Files.createFile(tmp);
            } catch (FileAlreadyExistsException e) {
                if (attempt > 100) {
                    throw e;
                }
            }
        }
    }
}
