package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.PluginTestText;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.Timestamp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** delete_backup T (gpbackup_manager, plugin_test.sh): all of T goes, its neighbour T+1 stays. */
class DeleteBackupTest extends PluginContract {
    private String victimKey;
    private byte[] victimData;

    @Override
    protected void forgetObjectsOfThePreviousFixture() {
        victimKey = null;
        victimData = null;
    }

    /** plugin_test.sh step 13, plus the file side and the listing. */
    @Test
    void removesTheBackupAndLeavesTheNextTimestampIntact() throws IOException {
        Timestamp t1 = timestamps.nextPluginTestStyle();
        Timestamp t2 = t1.plus(1);
        Backup b1 = backUp(t1);
        Backup b2 = backUp(t2);

        call("delete_backup", cfg(), t1.value()).assertSucceeded();

        call("restore_data", cfg(), b1.dataKey).assertFailed();
        Files.delete(b1.file);
        call("restore_file", cfg(), b1.file.toString()).assertFailed();
        assertFalse(Files.exists(b1.file), "a failed restore_file must not create the file");
        String listing = listAll();
        assertFalse(listing.contains(t1.value()), () -> "deleted backup still listed:\n" + listing);

        assertArrayEquals(b2.data, restoreData(b2.dataKey));
        Files.delete(b2.file);
        call("restore_file", cfg(), b2.file.toString()).assertSucceeded();
        assertEquals("this is some text " + t2, Files.readString(b2.file));
        assertTrue(listing.contains(backupDirectory(0, t2).remoteName(Path.of(b2.dataKey).getFileName().toString())),
                () -> "surviving backup missing from the listing:\n" + listing);
    }

    /** Prefixes of a real timestamp are the dangerous ones: a prefix match would delete someone else's backup. */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"13 digits", "15 digits", "letter", "date only", "dot-dot", "path"})
    void malformedTimestampsAreRejectedAndDeleteNothing(String kind) {
        Timestamp t = victim();
        String arg = switch (kind) {
            case "13 digits" -> t.value().substring(0, 13);
            case "15 digits" -> t.value() + "0";
            case "letter" -> t.value().substring(0, 13) + "x";
            case "date only" -> t.date();
            case "dot-dot" -> "../" + t.date();
            case "path" -> "backups/" + t.date() + "/" + t;
            default -> throw new IllegalArgumentException(kind);
        };
        call("delete_backup", cfg(), arg).assertFailed();
        assertArrayEquals(victimData, restoreData(victimKey), () -> "delete_backup " + arg + " damaged backup " + t);
    }

    private Timestamp victim() {
        Timestamp t = new Timestamp("20261124" + "000000");
        if (victimKey == null) {
            victimData = PluginTestText.generate(3, 1000);
            victimKey = backupDirectory(0, t).dataKey(16384);
            backupData(victimKey, victimData);
        }
        return t;
    }

    private record Backup(String dataKey, byte[] data, Path file) {
    }

    /** What plugin_test.sh does for each of T1 and T2: hooks on every tier, backup_data and backup_file. */
    private Backup backUp(Timestamp t) throws IOException {
        BackupDirectory coordinator = backupDirectory(-1, t).create();
        BackupDirectory segment = backupDirectory(0, t).create();
        call("setup_plugin_for_backup", cfg(), coordinator.path().toString(), "coordinator", quotedContentId(-1)).assertSucceeded();
        call("setup_plugin_for_backup", cfg(), segment.path().toString(), "segment_host").assertSucceeded();
        call("setup_plugin_for_backup", cfg(), segment.path().toString(), "segment", quotedContentId(0)).assertSucceeded();
        byte[] data = PluginTestText.generate(Long.parseLong(t.value()), 1000);
        String key = segment.dataKey(16384);
        backupData(key, data);
        Path file = coordinator.file("testfile_" + t + ".txt");
        Files.writeString(file, "this is some text " + t);
        call("backup_file", cfg(), file.toString()).assertSucceeded();
        return new Backup(key, data, file);
    }
}
