package io.gpdedup.store.config;

import java.nio.file.Path;

/**
 * Where the server logs: stderr (the default; under systemd with priority prefixes the journal
 * understands), or a file that rotates at {@code maxBytes} keeping {@code files} generations.
 *
 * @param file the log file, or null for stderr
 */
public record LogSettings(Path file, long maxBytes, int files) {
    static final long DEFAULT_MAX_BYTES = 64L << 20;
    static final int DEFAULT_FILES = 5;
    public static final LogSettings STDERR = new LogSettings(null, DEFAULT_MAX_BYTES, DEFAULT_FILES);

    public LogSettings {
        if (maxBytes < 4096 || maxBytes > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("log-file-max-bytes " + maxBytes + " is not 4096.." + Integer.MAX_VALUE);
        }
        if (files < 1 || files > 1000) {
            throw new IllegalArgumentException("log-file-count " + files + " is not 1..1000");
        }
    }

    public LogSettings withFile(Path newFile) {
        return new LogSettings(newFile, maxBytes, files);
    }

    @Override
    public String toString() {
        return file == null ? "stderr" : file + " (rotated at " + maxBytes + " bytes, " + files + " files)";
    }
}
