package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.ConfigFile;
import io.gpdedup.e2e.shell.CallResult;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The plugin config as gpbackup reads it (strict YAML: executablepath and a flat options map) and as
 * gpbackup writes each host's copy (with pgport and backup_plugin_version added). A bad config is
 * refused with a message naming the file and the offending key, before anything is stored.
 */
class ConfigValidationTest extends PluginContract {

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "unknown option",
            "nested option value",
            "list option value",
            "missing executablepath",
            "relative executablepath",
            "unknown top-level key",
            "options not a mapping",
    })
    void invalidConfigIsRejectedNamingFileAndKey(String kind) {
        String exe = fixture.executable().toString();
        Map<String, String> options = options();
        String first = options.keySet().iterator().next();
        String yaml;
        String key;
        switch (kind) {
            case "unknown option" -> {
                options.put("no_such_option", "1");
                yaml = ConfigFile.render(exe, options);
                key = "no_such_option";
            }
            case "nested option value", "list option value" -> {
                options.remove(first);
                String value = kind.startsWith("nested") ? "    nested: \"x\"\n" : "    - \"x\"\n";
                yaml = ConfigFile.render(exe, options) + "  " + first + ":\n" + value;
                key = first;
            }
            case "missing executablepath" -> {
                yaml = ConfigFile.render(exe, options).replaceFirst("executablepath: .*\n", "");
                key = "executablepath";
            }
            case "relative executablepath" -> {
                yaml = ConfigFile.render("bin/" + fixture.executable().getFileName(), options);
                key = "executablepath";
            }
            case "unknown top-level key" -> {
                yaml = ConfigFile.render(exe, options) + "retries: 3\n";
                key = "retries";
            }
            case "options not a mapping" -> {
                yaml = "executablepath: " + exe + "\noptions:\n  - directory\n";
                key = "options";
            }
            default -> throw new IllegalArgumentException(kind);
        }
        assertRejected(writeConfig(yaml), key);
    }

    @Test
    void everyRequiredOptionIsRequired() {
        assertFalse(fixture.requiredOptions().isEmpty(), "every gpdedup plugin needs at least a place to store into");
        for (String required : fixture.requiredOptions()) {
            Map<String, String> options = options();
            options.remove(required);
            assertRejected(writeConfig(ConfigFile.render(fixture.executable().toString(), options)), required);
        }
    }

    @Test
    void missingConfigFileIsRejectedNamingIt() {
        Path absent = tmp.resolve("20261123000000_absent_config.yaml");
        CallResult r = call(utf8("x"), "backup_data", absent.toString(), backupDirectory(0, timestamps.next()).dataKey(1)).assertFailed();
        assertTrue(r.stderr().contains(absent.toString()), () -> "message must name the config file: " + r);
        assertFalse(r.stderr().contains("Exception"), () -> "no Java exception in the message: " + r);
    }

    @Test
    void yamlSyntaxErrorNamesFileLineAndColumn() {
        Path bad = writeConfig(ConfigFile.render(fixture.executable().toString(), options()) + "   misindented: 1\n");
        int line = (int) ConfigFile.render(fixture.executable().toString(), options()).lines().count() + 1;
        CallResult r = call(utf8("must not be stored\n"), "backup_data", bad.toString(), backupDirectory(0, timestamps.next()).dataKey(1))
                .assertFailed();
        assertTrue(r.stderr().contains(bad + ":" + line + ":"), () -> "message must name file, line and column: " + r);
        assertTrue(r.stderr().contains("not valid YAML") && !r.stderr().contains("Exception"), r::toString);
    }

    /** A failing setup hook is what stops gpbackup before any data moves. */
    @Test
    void setupHookRejectsAnInvalidConfig() {
        Map<String, String> options = options();
        options.put("no_such_option", "1");
        Path bad = writeConfig(ConfigFile.render(fixture.executable().toString(), options));
        BackupDirectory dir = backupDirectory(-1, timestamps.next()).create();
        CallResult r = call("setup_plugin_for_backup", bad.toString(), dir.path().toString(), "master", quotedContentId(-1)).assertFailed();
        assertTrue(r.stderr().contains("no_such_option"), () -> "message must name the key: " + r);
    }

    /**
     * gpbackup adds pgport (quoted) and backup_plugin_version (empty on backup, the backing plugin's
     * version on restore) to every host's copy; a strict plugin must still accept them.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"gpbackup copy", "gprestore copy", "unquoted port"})
    void configsAsGpbackupWritesThemAreAccepted(String kind) {
        String exe = fixture.executable().toString();
        Map<String, String> options = new LinkedHashMap<>(options());
        String yaml;
        switch (kind) {
            case "gpbackup copy" -> {
                options.put("pgport", "5432");
                options.put("backup_plugin_version", "");
                yaml = ConfigFile.render(exe, options);
            }
            case "gprestore copy" -> {
                options.put("backup_plugin_version", "0.1.0");
                options.put("pgport", "6000");
                yaml = ConfigFile.render(exe, options);
            }
            case "unquoted port" -> yaml = ConfigFile.render(exe, options) + "  pgport: 5432\n";
            default -> throw new IllegalArgumentException(kind);
        }
        String cfg = writeConfig(yaml).toString();
        String key = backupDirectory(0, timestamps.next()).dataKey(16384);
        byte[] data = SeededBytes.array(kind.length(), 5000);
        call(data, "backup_data", cfg, key).assertSucceeded();
        assertArrayEquals(data, call("restore_data", cfg, key).assertSucceeded().stdout());
    }

    /** log_directory (set by the suite) moves the log out of ~/gpAdminLogs: the real home stays untouched. */
    @Test
    void logsGoToLogDirectoryAndNothingIntoHome() throws IOException {
        String key = backupDirectory(0, timestamps.next()).dataKey(16384);
        backupData(key, utf8("logged"));
        restoreData(key);
        String name = fixture.executable().getFileName().toString();
        assertTrue(Files.isDirectory(logs), "log_directory " + logs + " was not created");
        try (Stream<Path> files = Files.list(logs)) {
            List<Path> ours = files.filter(p -> p.getFileName().toString().startsWith(name)).toList();
            assertFalse(ours.isEmpty(), "no " + name + "* log file in log_directory " + logs);
        }
        try (Stream<Path> files = Files.walk(home)) {
            assertEquals(List.of(home), files.toList(), "plugin calls wrote into HOME");
        }
    }

    private void assertRejected(Path badConfig, String key) {
        String dataKey = backupDirectory(0, timestamps.next()).dataKey(16384);
        CallResult r = call(utf8("must not be stored\n"), "backup_data", badConfig.toString(), dataKey).assertFailed();
        assertTrue(r.stderr().contains(badConfig.toString()), () -> "message must name the config file: " + r);
        assertTrue(r.stderr().contains(key), () -> "message must name the key '" + key + "': " + r);
        call("restore_data", cfg(), dataKey).assertFailed();
    }
}
