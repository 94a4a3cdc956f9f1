package io.gpdedup.plugin.api;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * The plugin log, in gpAdminLogs like gpbackup's own: {@code <dir>/<plugin>_<YYYYMMDD>.log}, one
 * line per event in gplog's shape. Many plugin processes append to the same file at once, so each
 * line is one append-mode write. A log that cannot be written never fails a backup, and nothing is
 * ever printed: stdout carries data and stderr must stay silent on success.
 */
public final class PluginLog {
    private static final DateTimeFormatter DAY = DateTimeFormatter.ofPattern("yyyyMMdd");
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd:HH:mm:ss");

    private final String program;
    private final Path directory;
    private final String prefix;
    private FileChannel channel;
    private boolean broken;

    PluginLog(String program, Path directory) {
        this.program = program;
        this.directory = directory;
        this.prefix = program + ":" + System.getProperty("user.name", "?") + ":" + hostName() + ":"
                + String.format("%06d", ProcessHandle.current().pid());
    }

    /** The default directory: {@code ~/gpAdminLogs} of the user running the plugin. */
    static Path defaultDirectory() {
        return Paths.get(System.getProperty("user.home", "/tmp"), "gpAdminLogs");
    }

    static PluginLog forOptions(String program, PluginOptions options) {
        return new PluginLog(program, options.get(PluginOptions.LOG_DIRECTORY).map(Paths::get).orElseGet(PluginLog::defaultDirectory));
    }

    public Path file() {
        return directory.resolve(program + "_" + LocalDateTime.now().format(DAY) + ".log");
    }

    public void info(String message) {
        write("INFO", message);
    }

    /** Something went wrong that does not fail the call (gplog's WARNING). */
    public void warning(String message) {
        write("WARNING", message);
    }

    public void error(String message) {
        write("ERROR", message);
    }

    private synchronized void write(String level, String message) {
        if (broken) {
            return;
        }
        String line = LocalDateTime.now().format(STAMP) + " " + prefix + "-[" + level + "]:-" + message.replace('\n', ' ') + "\n";
        try {
            if (channel == null) {
                Files.createDirectories(directory);
                channel = FileChannel.open(file(), StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
            }
            ByteBuffer buf = ByteBuffer.wrap(line.getBytes(StandardCharsets.UTF_8));
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
        } catch (IOException | SecurityException e) {
            broken = true;
        }
    }

    public synchronized void close() {
        if (channel != null) {
            try {
                channel.close();
            } catch (IOException ignored) {
                // nothing useful to do: the log is best effort
            }
            channel = null;
        }
    }

    private static String hostName() {
        try {
            return Files.readString(Paths.get("/proc/sys/kernel/hostname")).trim();
        } catch (IOException | RuntimeException e) {
            String h = System.getenv("HOSTNAME");
            return h == null ? "localhost" : h;
        }
    }
}
