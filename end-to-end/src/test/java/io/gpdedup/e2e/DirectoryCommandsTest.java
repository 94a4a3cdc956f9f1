package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.Timestamp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The API 0.5.0 utility commands list_directory and delete_directory, on store names {@code backups/<date>/<T>/<file>}. */
class DirectoryCommandsTest extends PluginContract {

    @Test
    void listShowsStoredNamesAndDeleteDirectoryRemovesThem() throws IOException {
        Timestamp t = timestamps.next();
        BackupDirectory coordinator = backupDirectory(-1, t).create();
        BackupDirectory seg0 = backupDirectory(0, t);
        BackupDirectory seg1 = backupDirectory(1, t);
        List<String> keys = List.of(seg0.dataKey(16384), seg0.dataKey(16385), seg1.dataKey(16384));
        for (String k : keys) {
            backupData(k, utf8("data of " + k));
        }
        Path metadata = coordinator.coordinatorFile("metadata.sql");
        Files.writeString(metadata, "CREATE TABLE t();");
        call("backup_file", cfg(), metadata.toString()).assertSucceeded();
        List<String> names = List.of(seg0.remoteName("gpbackup_0_" + t + "_16384"), seg0.remoteName("gpbackup_0_" + t + "_16385"),
                seg1.remoteName("gpbackup_1_" + t + "_16384"), coordinator.remoteName("gpbackup_" + t + "_metadata.sql"));

        Timestamp other = timestamps.next();
        String otherKey = backupDirectory(0, other).dataKey(16384);
        byte[] otherData = utf8("another backup");
        backupData(otherKey, otherData);
        String otherName = backupDirectory(0, other).remoteName("gpbackup_0_" + other + "_16384");

        String all = listAll();
        for (String n : names) {
            assertTrue(all.contains(n), () -> n + " missing from list_directory:\n" + all);
        }
        assertTrue(all.contains(otherName), () -> otherName + " missing from list_directory:\n" + all);

        String dir = coordinator.remoteDirectory();
        String under = call("list_directory", cfg(), dir).assertSucceeded().stdoutText();
        for (String n : names) {
            assertTrue(under.contains(n), () -> n + " missing from list_directory " + dir + ":\n" + under);
        }
        assertFalse(under.contains(other.value()), () -> "list_directory " + dir + " shows another backup:\n" + under);

        call("delete_directory", cfg(), dir).assertSucceeded();
        String after = listAll();
        for (String n : names) {
            assertFalse(after.contains(n), () -> n + " survived delete_directory " + dir + ":\n" + after);
        }
        call("restore_data", cfg(), keys.get(0)).assertFailed();
        Files.delete(metadata);
        call("restore_file", cfg(), metadata.toString()).assertFailed();
        assertArrayEquals(otherData, restoreData(otherKey));
        assertTrue(after.contains(otherName), () -> otherName + " was removed by delete_directory " + dir + ":\n" + after);
    }

    /** delete_directory is a raw maintenance command: it must not be steerable outside the store. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"backups/{D}/..", "backups/{D}/{T}/../..", "../backups", "backups/../../{D}"})
    void deleteDirectoryRefusesDotDot(String template) {
        Timestamp t = timestamps.next();
        String key = backupDirectory(0, t).dataKey(16384);
        byte[] data = utf8("must survive");
        backupData(key, data);
        String path = template.replace("{D}", t.date()).replace("{T}", t.value());
        call("delete_directory", cfg(), path).assertFailed();
        assertArrayEquals(data, restoreData(key));
    }
}
