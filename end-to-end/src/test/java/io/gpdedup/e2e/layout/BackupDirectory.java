package io.gpdedup.e2e.layout;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One content's local backup directory, {@code <data dir>/backups/<YYYYMMDD>/<T>}, and the names
 * gpbackup gives files in it. Content -1 is the coordinator. Keys handed to backup_data are paths
 * in such a directory even though the data never lands there.
 */
public record BackupDirectory(Path dataDirectory, int content, Timestamp timestamp) {

    /** Segment {@code content} of a fake cluster whose data directories are {@code <root>/seg<content>}. */
    public static BackupDirectory of(Path root, int content, Timestamp timestamp) {
        return new BackupDirectory(root.resolve("seg" + content), content, timestamp);
    }

    public Path path() {
        return dataDirectory.resolve("backups").resolve(timestamp.date()).resolve(timestamp.value());
    }

    /** {@code mkdir -p}, which gpbackup does on every host before calling setup_plugin_for_backup. */
    public BackupDirectory create() {
        try {
            Files.createDirectories(path());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** A multi-file data key: {@code gpbackup_<c>_<T>_<oid>}. */
    public String dataKey(int oid) {
        return file("gpbackup_" + content + "_" + timestamp + "_" + oid).toString();
    }

    /** A single-data-file key: {@code gpbackup_<c>_<T>}. */
    public String singleDataFileKey() {
        return file("gpbackup_" + content + "_" + timestamp).toString();
    }

    /** A coordinator file such as {@code gpbackup_<T>_metadata.sql}. */
    public Path coordinatorFile(String suffix) {
        return file("gpbackup_" + timestamp + "_" + suffix);
    }

    public Path file(String name) {
        return path().resolve(name);
    }

    /** The name a plugin stores {@code fileName} under: the last four components of its local path. */
    public String remoteName(String fileName) {
        return "backups/" + timestamp.date() + "/" + timestamp + "/" + fileName;
    }

    /** The remote directory holding every object of this backup. */
    public String remoteDirectory() {
        return "backups/" + timestamp.date() + "/" + timestamp;
    }
}
