package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** plugin_api_version and --version: what gpbackup checks on every host before anything else. */
class VersionCommandsTest extends PluginContract {

    @Test
    void pluginApiVersionPrintsExactlyTheApiVersion() {
        assertEquals("0.5.0", singleLine(call("plugin_api_version").assertSucceeded()));
    }

    /** gpbackup splits the trimmed line on spaces and needs exactly three words; word 1 is the plugin name. */
    @Test
    void versionPrintsNameVersionRelease() {
        String line = singleLine(call("--version").assertSucceeded());
        String[] words = line.split(" ", -1);
        assertEquals(3, words.length, () -> "expected '<name> version <release>', got '" + line + "'");
        assertEquals(plugin.executable().getFileName().toString(), words[0], "word 1 must be the executable's name");
        assertEquals("version", words[1]);
        assertTrue(words[2].matches("[0-9][0-9A-Za-z.+-]*"),
                () -> "word 3 is recorded in gpbackup's history as the plugin version; got '" + words[2] + "'");
    }
}
