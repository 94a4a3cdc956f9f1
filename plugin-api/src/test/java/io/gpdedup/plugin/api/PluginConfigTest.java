package io.gpdedup.plugin.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class PluginConfigTest {
    @TempDir
    Path dir;

    private Path write(String yaml) throws Exception {
        Path f = dir.resolve("20261123045500_plugin.yaml");
        Files.writeString(f, yaml);
        return f;
    }

    @Test
    void readsWhatGpbackupWrites() throws Exception {
        Path f = write("executablepath: /usr/local/gpdedup/bin/gpbackup_localfs_plugin\n"
                + "options:\n  directory: /backups\n  pgport: \"5432\"\n  backup_plugin_version: \"\"\n  restore_subset: on\n  n: 5\n");
        PluginConfig c = PluginConfig.load(f);
        assertEquals("/usr/local/gpdedup/bin/gpbackup_localfs_plugin", c.executablePath());
        assertEquals(Map.of("directory", "/backups", "pgport", "5432", "backup_plugin_version", "", "restore_subset", "on", "n", "5"), c.options());
    }

    @Test
    void optionsMayBeAbsent() throws Exception {
        assertTrue(PluginConfig.load(write("executablepath: /x\n")).options().isEmpty());
        assertTrue(PluginConfig.load(write("executablepath: /x\noptions:\n")).options().isEmpty());
    }

    @Test
    void expandsEnvironmentVariablesLikeGo() {
        Map<String, String> env = Map.of("GPHOME", "/usr/local/gp", "X", "y");
        assertEquals("/usr/local/gp/bin/p", PluginConfig.expandEnvironment("$GPHOME/bin/p", env));
        assertEquals("/usr/local/gp/bin/p", PluginConfig.expandEnvironment("${GPHOME}/bin/p", env));
        assertEquals("/bin/p", PluginConfig.expandEnvironment("$UNSET/bin/p", env));
        assertEquals("/a$/b", PluginConfig.expandEnvironment("/a$/b", env));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "executablepath: /x\\nbogus: 1\\n|:2: unknown key 'bogus'",
        "executablepath: /x\\noptions:\\n  a:\\n    b: c\\n|:3: option 'a' must be a single value",
        "executablepath: /x\\noptions:\\n  a: [1, 2]\\n|:3: option 'a' must be a single value",
        "options:\\n  a: b\\n|missing required key 'executablepath'",
        "executablepath: relative/path\\n|must be an absolute path",
        "executablepath: /x\\noptions: 5\\n|:2: key 'options' must be a mapping",
        "- a\\n- b\\n|must be a mapping",
        "executablepath: /x\\nexecutablepath: /y\\n|duplicate key 'executablepath'",
        "executablepath: /x\\noptions:\\n  a: 1\\n  a: 2\\n|duplicate option 'a'",
        "executablepath: \"/x\\n|not valid YAML",
        "''|is empty"})
    void rejectsWithFileKeyAndLine(String yaml, String expected) throws Exception {
        Path f = write(yaml.replace("\\n", "\n"));
        PluginException e = assertThrows(PluginException.class, () -> PluginConfig.load(f));
        assertTrue(e.getMessage().startsWith(f.toString()), e.getMessage());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }

    @Test
    void missingFileIsAClearError() {
        PluginException e = assertThrows(PluginException.class, () -> PluginConfig.load(dir.resolve("nope.yaml")));
        assertEquals("plugin config " + dir.resolve("nope.yaml") + " does not exist", e.getMessage());
    }

    @Test
    void aSyntaxErrorNamesFileLineAndColumn() throws Exception {
        assertSyntaxError("executablepath: /x\noptions:\n  hostname: a\n   port: 3\n", ":4:8: plugin config is not valid YAML: mapping values are not allowed here");
        assertSyntaxError("executablepath: /x\noptions:\n  hostname: \"a\n", ":4:1: plugin config is not valid YAML: found unexpected end of stream");
        assertSyntaxError("executablepath: /x\n\toptions:\n", ":2:1: plugin config is not valid YAML: found character");
    }

    private void assertSyntaxError(String yaml, String expected) throws Exception {
        Path f = write(yaml);
        PluginException e = assertThrows(PluginException.class, () -> PluginConfig.load(f));
        assertTrue(e.getMessage().startsWith(f + expected), e.getMessage());
        assertFalse(e.getMessage().contains("Exception"), e.getMessage());
    }

    /** gpbackup compares on/off switches with the exact text "on": anything else would mean one thing to it and another to us. */
    @ParameterizedTest
    @ValueSource(strings = {"yes", "true", "ON", "On", "1", "\"\"", "\"on \"", "enabled"})
    void onOffSwitchesTakeOnlyOnAndOff(String value) throws Exception {
        List<OptionSpec> specs = List.of(OptionSpec.optional("restore_subset", OptionSpec.Type.ON_OFF, "off", "subset"));
        PluginException e = assertThrows(PluginException.class, () -> PluginOptions.validate(PluginConfig.load(write(
                "executablepath: /x\noptions:\n  restore_subset: " + value + "\n")), "p", specs));
        assertTrue(e.getMessage().contains(":3: option 'restore_subset' has invalid value '"), e.getMessage());
        assertTrue(e.getMessage().endsWith("allowed values are \"on\" and \"off\" (exactly, in lower case)"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        for (String ok : List.of("on", "\"on\"", "'on'")) {
            assertTrue(PluginOptions.validate(PluginConfig.load(write("executablepath: /x\noptions:\n  restore_subset: " + ok + "\n")), "p", specs)
                    .isOn("restore_subset"), ok);
        }
        for (String off : List.of("off", "\"off\"")) {
            assertFalse(PluginOptions.validate(PluginConfig.load(write("executablepath: /x\noptions:\n  restore_subset: " + off + "\n")), "p", specs)
                    .isOn("restore_subset"), off);
        }
        assertFalse(PluginOptions.validate(PluginConfig.load(write("executablepath: /x\noptions:\n  pgport: 5432\n")), "p", specs)
                .isOn("restore_subset"), "the default");
    }

    @Test
    void optionsAreValidatedAgainstTheirSpecs() throws Exception {
        List<OptionSpec> specs = List.of(
                OptionSpec.required("directory", OptionSpec.Type.ABSOLUTE_PATH, "where"),
                OptionSpec.optional("restore_subset", OptionSpec.Type.ON_OFF, "on", "subset"),
                OptionSpec.optional("chunk_size", OptionSpec.Type.SIZE, "256KiB", "size"),
                OptionSpec.choice("compression", "zstd", List.of("zstd", "lz4", "none"), "codec"));
        PluginOptions o = PluginOptions.validate(PluginConfig.load(write(
                "executablepath: /x\noptions:\n  directory: /d\n  pgport: 5432\n  backup_plugin_version: 0.1.0\n  gpbackup_test_plugin: c2VjcmV0\n  chunk_size: 1MiB\n")),
                "gpbackup_test_plugin", specs);
        assertTrue(o.isOn("restore_subset"));
        assertEquals(1 << 20, o.size("chunk_size"));
        assertEquals("zstd", o.require("compression"));

        PluginException unknown = assertThrows(PluginException.class, () -> PluginOptions.validate(
                PluginConfig.load(write("executablepath: /x\noptions:\n  directory: /d\n  directroy: /e\n")), "p", specs));
        assertTrue(unknown.getMessage().contains(":4: unknown option 'directroy'"), unknown.getMessage());

        PluginException type = assertThrows(PluginException.class, () -> PluginOptions.validate(
                PluginConfig.load(write("executablepath: /x\noptions:\n  directory: /d\n  restore_subset: maybe\n")), "p", specs));
        assertTrue(type.getMessage().contains(":4: option 'restore_subset' has invalid value 'maybe'"), type.getMessage());

        PluginException missing = assertThrows(PluginException.class, () -> PluginOptions.validate(
                PluginConfig.load(write("executablepath: /x\noptions:\n  compression: lz4\n")), "p", specs));
        assertTrue(missing.getMessage().contains("missing required option 'directory'"), missing.getMessage());

        PluginException size = assertThrows(PluginException.class, () -> PluginOptions.validate(
                PluginConfig.load(write("executablepath: /x\noptions:\n  directory: /d\n  chunk_size: 100M!\n")), "p", specs));
        assertTrue(size.getMessage().contains("chunk_size"), size.getMessage());
    }
}
