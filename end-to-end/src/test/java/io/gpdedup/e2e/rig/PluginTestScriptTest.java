package io.gpdedup.e2e.rig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.LocalfsFixture;
import io.gpdedup.e2e.fixture.PluginFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * gpbackup's own plugin test, {@code plugins/plugin_test.sh} from the rig's gpbackup sources, run as
 * gpadmin against each plugin: the standalone section (every command of the API, delete_backup
 * leaving a sibling backup intact) and the live section (eleven gpbackup/gprestore round trips
 * through the plugin: single-data-file with and without copy queue and compression, jobs mode,
 * metadata only, filtered restores). Its restore_data_subset steps run only for an executable named
 * {@code gpbackup_ddboost_plugin}, so the dedup plugin also runs under that name (a symlink),
 * standalone section only (the live one would repeat the dedup run).
 *
 * <p>The script is run from a copy that differs only in where it keeps its files (it hard-codes
 * {@code /tmp/test_bench_logs} and {@code /tmp/testseg}), its database name, and gpbackup run
 * through {@link RigInstall#gpbackupCommand()}, so the runs can go side by side. A plugin's live
 * section is run as {@value #PARTS} such copies side by side, each with the standalone section and
 * every {@value #PARTS}th round trip: the round trips mostly wait on the database, and one after
 * another they were the longest part of the rig stage.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(RigReady.class)
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class PluginTestScriptTest {
    private static final Duration LIMIT = Duration.ofMinutes(20);
    private static final int LIVE_ROUND_TRIPS = 11;
    private static final int PARTS = 2;
    private static final String DDBOOST_NAME = "gpbackup_ddboost_plugin";

    private Rig rig;
    private RigInstall install;
    private final LocalfsFixture localfs = new LocalfsFixture();
    private final DedupFixture dedup = new DedupFixture();

    @BeforeAll
    void start() throws Exception {
        rig = Rig.prepared();
        if (rig == null) {
            return;
        }
        install = RigInstall.create(rig, "plugin-test", "");
        localfs.start(install.directory("localfs"));
        dedup.start(install.root());
        Files.createSymbolicLink(install.executable(DDBOOST_NAME), install.executable(DedupFixture.EXECUTABLE).getFileName());
    }

    @AfterAll
    void stop() throws Exception {
        List<String> databases = new ArrayList<>();
        for (int part = 1; part <= PARTS; part++) {
            databases.addAll(List.of("plugin_test_localfs" + part, "plugin_test_dedup" + part));
        }
        RigInstall.release(rig, databases, dedup, install);
    }

    @Test
    void localfsPassesStandaloneAndLiveSections() throws Exception {
        String out = runLiveInParts("localfs", LocalfsFixture.EXECUTABLE, localfs);
        assertEquals(LIVE_ROUND_TRIPS, count(out, "[PASSED] gpbackup and gprestore"), out);
    }

    @Test
    void dedupPassesStandaloneAndLiveSections() throws Exception {
        String out = runLiveInParts("dedup", DedupFixture.EXECUTABLE, dedup);
        assertEquals(LIVE_ROUND_TRIPS, count(out, "[PASSED] gpbackup and gprestore"), out);
    }

    @Test
    void dedupUnderTheDdboostNamePassesRestoreDataSubsetSteps() throws Exception {
        String out = runScript("subset", DDBOOST_NAME, dedup, 0);
        for (String step : List.of("[PASSED] restore_data_subset with small data", "[PASSED] restore_data_subset of one partition from large data",
                "[PASSED] restore_data_subset of two partitions from large data")) {
            assertTrue(out.contains(step), step + "\n" + out);
        }
    }

    /** The script's {@value #PARTS} parts side by side; their outputs, one after the other. */
    private String runLiveInParts(String name, String executableName, PluginFixture plugin) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(PARTS);
        try {
            List<Future<String>> parts = new ArrayList<>();
            for (int part = 1; part <= PARTS; part++) {
                int p = part;
                parts.add(pool.submit(() -> runScript(name + p, executableName, plugin, p)));
            }
            StringBuilder out = new StringBuilder();
            for (Future<String> f : parts) {
                try {
                    out.append(f.get());
                } catch (ExecutionException e) {
                    if (e.getCause() instanceof Error error) {
                        throw error;
                    }
                    throw e;
                }
            }
            return out.toString();
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Runs the patched script with the live section's round trips of {@code part} (none for 0);
     * returns its output, failing unless it passed to the end.
     */
    private String runScript(String name, String executableName, PluginFixture plugin, int part) throws Exception {
        Path dir = install.directory("plugin_test_" + name);
        Path script = dir.resolve("plugin_test.sh");
        Files.writeString(script, patch(Files.readString(rig.backupSources().resolve("plugins/plugin_test.sh"), StandardCharsets.UTF_8), name, dir, part),
                StandardCharsets.UTF_8);
        Map<String, String> options = new LinkedHashMap<>(plugin.options());
        options.put("log_directory", install.directory("logs-" + name).toString());
        Path executable = install.executable(executableName);
        // Not named ddboost_config*.yaml: those names switch on DD Boost replication steps.
        Path config = install.config(name + "_plugin_test.yaml", executable, options);
        AsGpadmin.Outcome o = rig.run(dir, dir.resolve("plugin_test.out"), LIMIT, List.of("bash", script.toString(), executable.toString(), config.toString()));
        assertTrue(o.succeeded(), o.describe());
        assertTrue(o.output().contains("# Finished gpbackup plugin tests"), o.output());
        System.out.println("plugin_test.sh " + name + ": " + count(o.output(), "[PASSED]") + " steps passed");
        return o.output();
    }

    /**
     * The script with its files under {@code dir}, its own database, gpbackup retried on a taken
     * second; of the live section's round trips only those of {@code part} (the first of every
     * {@value #PARTS} for 1, the second for 2, ...), none for 0.
     */
    private String patch(String script, String name, Path dir, int part) {
        String s = replace(script, "/tmp/test_bench_logs", dir.resolve("logs").toString());
        s = replace(s, "/tmp/testseg", dir.resolve("testseg").toString());
        s = replace(s, "/tmp/.encrypt_saved", dir.resolve("encrypt_saved").toString());
        s = replace(s, "test_db=plugin_test_db", "test_db=plugin_test_" + name);
        s = replace(s, "    gpbackup --dbname $test_db", "    " + install.gpbackupCommand() + " --dbname $test_db");
        String call = "test_backup_and_restore_with_plugin ";
        if (s.lines().noneMatch(l -> l.startsWith(call))) {
            throw new IllegalStateException("plugin_test.sh has no live section calls to share out or leave out");
        }
        StringBuilder kept = new StringBuilder();
        int calls = 0;
        for (String line : s.split("\n", -1)) {
            boolean keep = line.startsWith(call) ? part != 0 && calls++ % PARTS == part - 1
                    : part != 0 || !line.equals("dropdb $test_db"); // without round trips there is no database to drop
            if (keep) {
                kept.append(line).append('\n');
            }
        }
        return kept.substring(0, kept.length() - 1);
    }

    private static String replace(String text, String what, String with) {
        if (!text.contains(what)) {
            throw new IllegalStateException("plugin_test.sh no longer contains '" + what + "': update the patch");
        }
        return text.replace(what, with);
    }

    private static long count(String text, String what) {
        return text.lines().filter(l -> l.contains(what)).count();
    }
}
