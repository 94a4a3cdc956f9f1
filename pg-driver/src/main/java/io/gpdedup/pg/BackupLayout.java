package io.gpdedup.pg;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * gpbackup's names for one backup (GB {@code filepath/filepath.go}): everything under
 * {@code <root>/backups/<YYYYMMDD>/<T>/} with a 14-digit timestamp T; coordinator files
 * {@code gpbackup_<T>_config.yaml}, {@code _metadata.sql}, {@code _toc.yaml}; table data
 * {@code gpbackup_<content>_<T>_<oid>} in jobs mode, one {@code gpbackup_<content>_<T>} stream
 * plus {@code gpbackup_<content>_<T>_toc.yaml} in single-data-file mode. A plain PostgreSQL server
 * plays a cluster with one segment, content {@value #CONTENT}. {@code root} stands for the data
 * directory gpbackup would use: only the local metadata files are written there, data goes to
 * the plugin under the same names.
 */
final class BackupLayout {
    public static final int CONTENT = 0;
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");
    private static final AtomicReference<LocalDateTime> LAST = new AtomicReference<>(LocalDateTime.MIN);

    private final Path root;
    private final String timestamp;

    private BackupLayout(Path root, String timestamp) {
        this.root = root.toAbsolutePath().normalize();
        this.timestamp = timestamp;
    }

    /**
     * A layout with a fresh timestamp: now, or one second after the last one this process issued
     * (backups in quick succession, as in tests), skipping timestamps whose directory exists.
     */
    static BackupLayout newBackup(Path root) throws IOException {
        while (true) {
            LocalDateTime now = LocalDateTime.now().withNano(0);
            LocalDateTime prev = LAST.get();
            LocalDateTime next = now.isAfter(prev) ? now : prev.plusSeconds(1);
            if (!LAST.compareAndSet(prev, next)) {
                continue;
            }
            BackupLayout layout = new BackupLayout(root, next.format(STAMP));
            if (!Files.exists(layout.directory())) {
                Files.createDirectories(layout.directory());
                return layout;
            }
        }
    }

    /** The layout of an existing backup. */
    public static BackupLayout of(Path root, String timestamp) {
        if (timestamp == null || !timestamp.matches("\\d{14}")) {
            throw new IllegalArgumentException("timestamp must be 14 digits (YYYYMMDDHHMMSS), got '" + timestamp + "'");
        }
        try {
            LocalDateTime.parse(timestamp, STAMP);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("timestamp " + timestamp + " is not a date and time");
        }
        return new BackupLayout(root, timestamp);
    }

    public String timestamp() {
        return timestamp;
    }

    public Path directory() {
        return root.resolve("backups").resolve(timestamp.substring(0, 8)).resolve(timestamp);
    }

    public Path configFile() {
        return directory().resolve("gpbackup_" + timestamp + "_config.yaml");
    }

    Path metadataFile() {
        return directory().resolve("gpbackup_" + timestamp + "_metadata.sql");
    }

    Path tocFile() {
        return directory().resolve("gpbackup_" + timestamp + "_toc.yaml");
    }

    /** The single-data-file stream's TOC: offsets of each table in the stream. */
    Path segmentTocFile() {
        return directory().resolve("gpbackup_" + CONTENT + "_" + timestamp + "_toc.yaml");
    }

    /** The path passed to {@code backup_data}/{@code restore_data} for one table in jobs mode. */
    String tableDataPath(long oid) {
        return directory().resolve("gpbackup_" + CONTENT + "_" + timestamp + "_" + oid).toString();
    }

    /** The path of the one stream of a single-data-file backup. */
    String singleDataFilePath() {
        return directory().resolve("gpbackup_" + CONTENT + "_" + timestamp).toString();
    }
}
