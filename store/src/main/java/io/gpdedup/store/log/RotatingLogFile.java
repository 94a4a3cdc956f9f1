package io.gpdedup.store.log;

import io.gpdedup.store.container.OwnerOnly;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.logging.ErrorManager;
import java.util.logging.Handler;
import java.util.logging.LogRecord;

/**
 * A log file named as logrotate names them: the current one is {@code FILE}, and once it would
 * pass the size limit it becomes {@code FILE.1}, the older ones move up to {@code FILE.<count-1>},
 * and the oldest goes. Each record is flushed, so a crash loses no line that was logged.
 */
final class RotatingLogFile extends Handler {
    private final Path file;
    private final long maxBytes;
    private final int files;
    private OutputStream out;
    private long size;

    RotatingLogFile(Path file, long maxBytes, int files) throws IOException {
        this.file = file;
        this.maxBytes = maxBytes;
        this.files = files;
        open();
    }

    private void open() throws IOException {
        out = java.nio.channels.Channels.newOutputStream(OwnerOnly.open(file, StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE));
        size = Files.size(file);
    }

    @Override
    public synchronized void publish(LogRecord record) {
        if (!isLoggable(record)) {
            return;
        }
        byte[] line = getFormatter().format(record).getBytes(StandardCharsets.UTF_8);
        try {
            if (size > 0 && size + line.length > maxBytes) {
                rotate();
            }
            out.write(line);
            out.flush();
            size += line.length;
        } catch (IOException e) {
            reportError("cannot write log file " + file + ": " + e.getMessage(), e, ErrorManager.WRITE_FAILURE);
        }
    }

    private void rotate() throws IOException {
        out.close();
        Files.deleteIfExists(generation(files - 1));
        for (int g = files - 2; g >= 0; g--) {
            Path from = generation(g);
            if (Files.exists(from)) {
                Files.move(from, generation(g + 1), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        open();
    }

    private Path generation(int g) {
        return g == 0 ? file : file.resolveSibling(file.getFileName() + "." + g);
    }

    @Override
    public synchronized void flush() {
        try {
            out.flush();
        } catch (IOException e) {
            reportError("cannot flush log file " + file, e, ErrorManager.FLUSH_FAILURE);
        }
    }

    @Override
    public synchronized void close() {
        try {
            out.close();
        } catch (IOException e) {
            reportError("cannot close log file " + file, e, ErrorManager.CLOSE_FAILURE);
        }
    }
}
