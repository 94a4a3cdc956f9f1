package io.gpdedup.dedup;

import io.gpdedup.protocol.naming.BackupTimestamp;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * What gpbackup's report {@code gpbackup_<T>_report} says about how backup T ended. gpbackup writes
 * it into the coordinator's backup directory in its teardown, with a line
 * {@code backup status:  Success} (or {@code Failure}, followed by {@code backup error:}), and
 * stores it with backup_file before it runs the cleanup hooks.
 */
final class BackupReport {
    static final String SUCCESS = "Success";
    private static final String STATUS_KEY = "backup status:";
    /** A report is a few KB; object counts can make it longer, but the status comes before them. */
    private static final int MAX_READ = 1 << 20;

    private BackupReport() {
    }

    static Path file(Path backupDirectory, BackupTimestamp timestamp) {
        return backupDirectory.resolve("gpbackup_" + timestamp + "_report");
    }

    /**
     * The status the report gives, empty when there is no report or no status line in it.
     *
     * @throws IOException if the report exists but cannot be read
     */
    static Optional<String> status(Path backupDirectory, BackupTimestamp timestamp) throws IOException {
        byte[] head;
        try (InputStream in = Files.newInputStream(file(backupDirectory, timestamp))) {
            head = in.readNBytes(MAX_READ);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
        for (String line : new String(head, StandardCharsets.UTF_8).split("\n")) {
            if (line.startsWith(STATUS_KEY)) {
                return Optional.of(line.substring(STATUS_KEY.length()).trim());
            }
        }
        return Optional.empty();
    }
}
