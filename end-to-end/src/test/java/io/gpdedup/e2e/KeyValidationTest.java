package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.shell.CallResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Keys must be gpbackup's shape, {@code .../backups/<YYYYMMDD>/<T>/<file>}, because the stored name
 * is derived from those last components; anything else, and any {@code ..}, is refused before a
 * byte is stored, and refused the same way on restore.
 */
class KeyValidationTest extends PluginContract {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "dot-dot before the shape",
            "dot-dot inside the shape",
            "dot-dot escaping",
            "no backups directory",
            "no date directory",
            "date not the timestamp's",
            "timestamp too short",
            "timestamp with a letter",
            "no file name",
            "relative path",
    })
    void malformedKeysAreRejectedAndStoreNothing(String kind) throws IOException {
        Timestamp t = timestamps.next();
        String marker = "keymarker" + t;
        String seg = scratch.resolve("seg0").toString();
        String d = t.date();
        String file = "gpbackup_0_" + t + "_" + marker;
        String key = switch (kind) {
            case "dot-dot before the shape" -> seg + "/../seg0/backups/" + d + "/" + t + "/" + file;
            case "dot-dot inside the shape" -> seg + "/backups/" + d + "/../" + d + "/" + t + "/" + file;
            case "dot-dot escaping" -> seg + "/backups/" + d + "/" + t + "/../../../../" + file;
            case "no backups directory" -> seg + "/" + d + "/" + t + "/" + file;
            case "no date directory" -> seg + "/backups/" + t + "/" + file;
            case "date not the timestamp's" -> seg + "/backups/20261124/" + t + "/" + file;
            case "timestamp too short" -> seg + "/backups/" + d + "/" + t.value().substring(0, 12) + "/" + file;
            case "timestamp with a letter" -> seg + "/backups/" + d + "/" + t.value().substring(0, 13) + "x/" + file;
            case "no file name" -> seg + "/backups/" + d + "/" + t + "/";
            case "relative path" -> "seg0/backups/" + d + "/" + t + "/" + file;
            default -> throw new IllegalArgumentException(kind);
        };
        String before = storeListing();

        call(utf8("bytes under a bad key\n"), "backup_data", cfg(), key).assertFailed();
        call("restore_data", cfg(), key).assertFailed();

        assertEquals(before, listAll(), "a rejected backup_data changed the store");
        assertEquals(0, filesNamedLike(scratch, marker), "a rejected backup_data wrote a file named after its key");
    }

    /**
     * Control characters in a key (bash's {@code $'...'} quoting puts them there): refused with one
     * line, which must not carry the newline itself.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"\\n", "\\r", "\\e", "\\x7f"})
    void keysWithControlCharactersAreRejectedInOneLine(String escape) throws IOException {
        Timestamp t = timestamps.next();
        String marker = "ctlmarker" + t;
        String key = scratch.resolve("seg0") + "/backups/" + t.date() + "/" + t + "/gpbackup_0_" + t + "_" + marker + "$'" + escape + "'x";
        String before = storeListing();

        for (CallResult r : List.of(call(utf8("bytes under a bad key\n"), "backup_data", cfg(), key), call("restore_data", cfg(), key))) {
            r.assertFailed();
            assertEquals(1, r.stderr().lines().count(), () -> "one line on stderr: " + r);
            assertTrue(r.stderr().contains("control character"), () -> "names the problem: " + r);
        }
        assertEquals(before, listAll(), "a rejected backup_data changed the store");
        assertEquals(0, filesNamedLike(scratch, marker), "a rejected backup_data wrote a file named after its key");
    }

    /**
     * gpbackup_helper writes a segment's tables into backup_data's stdin: when the call fails, the
     * plugin reads on to the end (within bounds) so the helper logs the plugin's error line instead
     * of dying of a broken pipe.
     */
    @Test
    void aFailedBackupReadsItsStdinSoTheWriterSeesNoBrokenPipe() {
        Timestamp t = timestamps.next();
        String key = scratch.resolve("seg0") + "/" + t.date() + "/" + t + "/gpbackup_0_" + t + "_16384";
        CallResult r = plugin.run(new SeededBytes(11, 32 << 20), "backup_data", cfg(), key).assertFailed();
        assertNull(r.stdinError(), () -> "the writer's stdin broke: " + r);
    }

    @Test
    void backupFileOfAPathWithDotDotIsRejected() throws IOException {
        Timestamp t = timestamps.next();
        BackupDirectory dir = backupDirectory(-1, t).create();
        Path file = dir.coordinatorFile("metadata.sql");
        Files.writeString(file, "metadata");
        String dotted = scratch.resolve("seg-1") + "/../seg-1/backups/" + t.date() + "/" + t + "/" + file.getFileName();
        String before = storeListing();

        call("backup_file", cfg(), dotted).assertFailed();
        Files.delete(file);
        call("restore_file", cfg(), file.toString()).assertFailed();
        assertEquals(before, listAll(), "a rejected backup_file changed the store");
    }

    /** The listing of a store holding at least one object (so it exists whatever the plugin). */
    private String storeListing() {
        BackupDirectory dir = backupDirectory(0, timestamps.next());
        backupData(dir.dataKey(1), utf8("baseline"));
        return listAll();
    }
}
