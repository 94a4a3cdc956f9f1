package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.ConfigFile;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.PluginShell;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * The dedup plugin's on/off switches take exactly "on" or "off", as gpbackup compares them
 * (gprestore calls restore_data_subset only for {@code restore_subset: "on"}, gpbackup adds the
 * .encrypt secret only for {@code password_encryption: "on"}): any other spelling is refused with
 * one line naming the option and the two values, and nothing is stored.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class OnOffSwitchTest {
    private static final List<String> SWITCHES = List.of("restore_subset", "password_encryption", "replication", "tls",
            "remote_password_encryption");
    private static final List<String> NOT_ON_OR_OFF = List.of("yes", "true", "ON", "On", "1", "\"\"");

    private Path dir;
    private final DedupFixture fixture = new DedupFixture();
    private final Timestamps timestamps = new Timestamps();
    private PluginShell plugin;

    @BeforeAll
    void start(@TempDir Path scratch) throws Exception {
        dir = scratch;
        fixture.start(Files.createDirectories(dir.resolve("fixture")));
        plugin = new PluginShell(fixture.executable(), Files.createDirectories(dir.resolve("cwd")), Files.createDirectories(dir.resolve("home")));
    }

    @AfterAll
    void stop() throws Exception {
        fixture.close();
    }

    @Test
    void anythingButOnOrOffIsRefusedNamingTheOptionAndNothingIsStored() {
        Path good = config("good", Map.of());
        int refused = 0;
        for (String option : SWITCHES) {
            for (String value : NOT_ON_OR_OFF) {
                Path bad = configWith(option + "-" + refused, option, value);
                String key = BackupDirectory.of(dir, 0, timestamps.next()).dataKey(16384);
                CallResult r = plugin.run(new ByteArrayInputStream(SeededBytes.array(refused, 1000)), "backup_data", bad.toString(), key)
                        .assertFailed();
                String line = r.stderr().strip();
                assertEquals(1, line.lines().count(), () -> "one line: " + r);
                assertTrue(line.contains(bad + ":") && line.contains("option '" + option + "' has invalid value"), () -> "names the option: " + r);
                assertTrue(line.endsWith("allowed values are \"on\" and \"off\" (exactly, in lower case)"), () -> "gives the values: " + r);
                plugin.run("restore_data", good.toString(), key).assertFailed();
                refused++;
            }
        }
        assertEquals(SWITCHES.size() * NOT_ON_OR_OFF.size(), refused);
    }

    @Test
    void onAndOffAreAccepted() {
        for (String value : List.of("on", "off")) {
            Path cfg = config("subset-" + value, Map.of("restore_subset", value, "tls", "off", "replication", "off"));
            String key = BackupDirectory.of(dir, 0, timestamps.next()).dataKey(16384);
            byte[] data = SeededBytes.array(value.length(), 20_000);
            plugin.run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), key).assertSucceeded();
            assertArrayEquals(data, plugin.run("restore_data", cfg.toString(), key).assertSucceeded().stdout());
        }
    }

    private Path config(String name, Map<String, String> extra) {
        Map<String, String> options = new LinkedHashMap<>(fixture.options());
        options.put("log_directory", dir.resolve("logs").toString());
        options.putAll(extra);
        return ConfigFile.write(dir.resolve("tmp"), new Timestamp("20261123000000"), name + ".yaml",
                ConfigFile.render(fixture.executable().toString(), options));
    }

    /** A config with {@code option: value} written as is (unquoted unless the value brings its quotes). */
    private Path configWith(String name, String option, String value) {
        Path cfg = config(name, Map.of());
        try {
            Files.writeString(cfg, "  " + option + ": " + value + "\n", StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return cfg;
    }
}
