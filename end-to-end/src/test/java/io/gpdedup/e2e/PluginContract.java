package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.gpdedup.e2e.fixture.PluginFixture;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.ConfigFile;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.PluginShell;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Base of every contract test: each subclass runs once per {@link io.gpdedup.e2e.fixture.Fixtures
 * fixture}, against a freshly started one, in a scratch tree laid out like a host:
 *
 * <pre>
 * &lt;scratch&gt;/seg-1, seg0, seg1...   data directories (local backup dirs, backup_file sources)
 * &lt;scratch&gt;/tmp                    per-host config copies (&lt;T&gt;_&lt;name&gt;.yaml), offsets files
 * &lt;scratch&gt;/home, cwd, logs         HOME, working directory and log_directory of every call
 * &lt;scratch&gt;/fixture                 whatever the fixture stores into
 * </pre>
 */
@ParameterizedClass(name = "{0}", autoCloseArguments = false)
@MethodSource("io.gpdedup.e2e.fixture.Fixtures#all")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class PluginContract {
    /** Keep the scratch tree (logs, store) after the run, for debugging a failure. */
    static final String KEEP_PROPERTY = "gpdedup.e2e.keep";

    @Parameter
    protected PluginFixture fixture;

    protected Path scratch;
    protected Path home;
    protected Path tmp;
    protected Path logs;
    protected PluginShell plugin;
    protected Path config;
    protected final Timestamps timestamps = new Timestamps();

    @BeforeParameterizedClassInvocation
    void startFixture() throws Exception {
        assertNotNull(fixture, "fixture not injected");
        forgetObjectsOfThePreviousFixture();
        scratch = Files.createTempDirectory("gpdedup-e2e-" + fixture.name() + "-");
        home = Files.createDirectories(scratch.resolve("home"));
        tmp = Files.createDirectories(scratch.resolve("tmp"));
        logs = scratch.resolve("logs");
        Path cwd = Files.createDirectories(scratch.resolve("cwd"));
        Path fixtureScratch = Files.createDirectories(scratch.resolve("fixture"));
        fixture.start(fixtureScratch);
        plugin = new PluginShell(fixture.executable(), cwd, home);
        config = writeConfig(ConfigFile.render(fixture.executable().toString(), options()));
    }

    /**
     * The same test instance serves every fixture in turn (PER_CLASS lifecycle): a subclass that
     * caches keys of stored objects must forget them here, or it would ask the next plugin for
     * objects only the previous one holds.
     */
    protected void forgetObjectsOfThePreviousFixture() {
    }

    @AfterParameterizedClassInvocation
    void stopFixture() throws Exception {
        try {
            fixture.close();
        } finally {
            if (scratch != null && !Boolean.getBoolean(KEEP_PROPERTY)) {
                deleteTree(scratch);
            }
        }
    }

    /** The fixture's options plus {@code log_directory}, which keeps plugin logs out of the real home. */
    protected Map<String, String> options() {
        Map<String, String> options = new LinkedHashMap<>(fixture.options());
        options.put("log_directory", logs.toString());
        return options;
    }

    /** Writes a config the way gpbackup copies one to a host: {@code <tmp>/<T>_<name>.yaml}. */
    protected Path writeConfig(String yaml) {
        Path file = ConfigFile.write(tmp, timestamps.next(), fixture.name() + "_config.yaml", yaml);
        PluginShell.requireShellSafe(file.toString());
        return file;
    }

    protected String cfg() {
        return config.toString();
    }

    protected CallResult call(String... words) {
        return plugin.run(words);
    }

    protected CallResult call(InputStream stdin, String... words) {
        return plugin.run(stdin, words);
    }

    protected CallResult call(byte[] stdin, String... words) {
        return plugin.run(new ByteArrayInputStream(stdin), words);
    }

    /** The local backup directory of {@code content} for backup {@code t} (not created). */
    protected BackupDirectory backupDirectory(int content, Timestamp t) {
        return BackupDirectory.of(scratch, content, t);
    }

    protected void backupData(String key, byte[] data) {
        call(data, "backup_data", cfg(), key).assertSucceeded();
    }

    protected byte[] restoreData(String key) {
        return call("restore_data", cfg(), key).assertSucceeded().stdout();
    }

    /** list_directory of the whole store; must succeed. */
    protected String listAll() {
        return call("list_directory", cfg()).assertSucceeded().stdoutText();
    }

    /** A content id as gpbackup and plugin_test.sh put it in the command line: {@code \"-1\"}, which bash turns into the argument {@code "-1"}. */
    protected static String quotedContentId(int content) {
        return "\\\"" + content + "\\\"";
    }

    /** stdout of a command that prints one line (gpbackup trims it): the line without its newline. */
    protected static String singleLine(CallResult r) {
        String s = r.stdoutText();
        if (s.endsWith("\n")) {
            s = s.substring(0, s.length() - 1);
        }
        assertFalse(s.contains("\n") || s.contains("\r"), () -> "expected exactly one line on stdout: " + r);
        return s;
    }

    protected static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Regular files under {@code dir} whose name contains {@code marker}: where a rejected call must not have written. */
    protected static long filesNamedLike(Path dir, String marker) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.filter(Files::isRegularFile).filter(p -> p.getFileName().toString().contains(marker)).count();
        }
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
