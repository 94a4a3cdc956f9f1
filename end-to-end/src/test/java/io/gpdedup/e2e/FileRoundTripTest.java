package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.layout.BackupDirectory;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** backup_file and restore_file: the coordinator's metadata, TOC, config and report files. */
class FileRoundTripTest extends PluginContract {

    /** plugin_test.sh's text file, an empty file (e.g. statistics of an empty database) and a 300 KB binary one. */
    @ParameterizedTest(name = "{0} bytes")
    @ValueSource(ints = {17, 0, 300_000})
    void backupKeepsTheLocalFileAndRestoreRecreatesIt(int size) throws IOException {
        BackupDirectory dir = backupDirectory(-1, timestamps.next()).create();
        Path file = dir.coordinatorFile("metadata.sql");
        byte[] content = size == 17 ? utf8("this is some text") : SeededBytes.array(size, size);
        Files.write(file, content);

        call("backup_file", cfg(), file.toString()).assertSucceeded();
        assertTrue(Files.isRegularFile(file), "backup_file must leave the local file in place");
        assertArrayEquals(content, Files.readAllBytes(file), "backup_file must not change the local file");

        Files.delete(file);
        call("restore_file", cfg(), file.toString()).assertSucceeded();
        assertArrayEquals(content, Files.readAllBytes(file));
        assertEquals(List.of(file), listLocal(dir.path()), "restore_file must leave nothing else behind");
    }

    /** Restoring on the cluster that made the backup finds gpbackup's own copy still there: it is replaced. */
    @Test
    void restoreReplacesADifferentLocalFile() throws IOException {
        BackupDirectory dir = backupDirectory(-1, timestamps.next()).create();
        Path file = dir.coordinatorFile("toc.yaml");
        Files.writeString(file, "stored version\n");
        call("backup_file", cfg(), file.toString()).assertSucceeded();
        Files.writeString(file, "local edit that is longer than the stored version\n");

        call("restore_file", cfg(), file.toString()).assertSucceeded();
        assertEquals("stored version\n", Files.readString(file));
    }

    @Test
    void restoreOfAFileNeverBackedUpFailsAndCreatesNothing() throws IOException {
        BackupDirectory dir = backupDirectory(-1, timestamps.next()).create();
        // Another file of the same backup exists remotely, so the backup's remote directory exists.
        Path other = dir.coordinatorFile("report");
        Files.writeString(other, "report");
        call("backup_file", cfg(), other.toString()).assertSucceeded();
        Files.delete(other);

        Path missing = dir.file("there_is_no_file_to_restore");
        call("restore_file", cfg(), missing.toString()).assertFailed();
        assertEquals(List.of(), listLocal(dir.path()), "a failed restore_file must not leave a file behind");
    }

    @Test
    void backupOfAMissingLocalFileFails() {
        BackupDirectory dir = backupDirectory(-1, timestamps.next()).create();
        Path missing = dir.coordinatorFile("config.yaml");
        call("backup_file", cfg(), missing.toString()).assertFailed();
        call("restore_file", cfg(), missing.toString()).assertFailed();
        assertFalse(Files.exists(missing));
    }

    private static List<Path> listLocal(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.sorted().toList();
        }
    }
}
