package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.PluginShell;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A caller that closed the plugin's stdin ({@code <&-}) or stdout ({@code >&-}): the launcher puts
 * {@code /dev/null} there, and the call must still fail with one line on stderr, never back up an
 * empty stream or throw a restore away with exit status 0. Through the host agent
 * ({@code GPDEDUP_AGENT=require}) and in the JVM the launcher starts for the call ({@code off}).
 */
class ClosedStdioTest extends PluginContract {
    @ParameterizedTest(name = "GPDEDUP_AGENT={0}")
    @ValueSource(strings = {"require", "off"})
    void backupDataWithItsStdinClosedFailsAndStoresNothing(String agent) {
        BackupDirectory dir = backupDirectory(0, timestamps.next()).create();
        String key = dir.dataKey(16384);
        CallResult r = shell(agent).run("backup_data", cfg(), key, "<&-").assertFailed();
        assertOneLine(r, "stdin is closed");

        call("restore_data", cfg(), key).assertFailed();
        String listing = listAll();
        assertFalse(listing.contains(dir.remoteName(Path.of(key).getFileName().toString())), () -> "stored from a closed stdin:\n" + listing);
    }

    @ParameterizedTest(name = "GPDEDUP_AGENT={0}")
    @ValueSource(strings = {"require", "off"})
    void restoresWithTheirStdoutClosedFail(String agent) throws IOException {
        BackupDirectory dir = backupDirectory(0, timestamps.next()).create();
        String key = dir.dataKey(16384);
        backupData(key, SeededBytes.array(3, 200_000));
        assertOneLine(shell(agent).run("restore_data", cfg(), key, ">&-").assertFailed(), "stdout is closed");
        Path offsets = Files.writeString(tmp.resolve("gprestore_offsets_closed_" + agent), "1 10 20");
        assertOneLine(shell(agent).run("restore_data_subset", cfg(), key, offsets.toString(), ">&-").assertFailed(), "stdout is closed");
    }

    private PluginShell shell(String agent) {
        return new PluginShell(plugin.executable(), scratch.resolve("cwd"), home, Map.of("GPDEDUP_AGENT", agent));
    }

    private static void assertOneLine(CallResult r, String says) {
        assertEquals(1, r.stderr().lines().count(), () -> "one line on stderr: " + r);
        assertTrue(r.stderr().contains(says), () -> "stderr should say '" + says + "': " + r);
    }
}
