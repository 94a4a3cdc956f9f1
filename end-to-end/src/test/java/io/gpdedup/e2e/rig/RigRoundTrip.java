package io.gpdedup.e2e.rig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.fixture.PluginFixture;
import io.gpdedup.pg.DatabaseDigest;
import io.gpdedup.pg.DatabaseDigest.TableDigest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * gpbackup and gprestore of a real Greenplum cluster through one plugin, each restore compared
 * table by table (row count and checksum) with its source: jobs mode, single-data-file with and
 * without a copy queue, filtered restores, a repeat backup after changes, metadata only, and
 * {@code delete_backup}. One subclass per plugin; the plugin's own checks go in the subclass hooks.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(RigReady.class)
// Beside the rest of the suite, in a thread of its own; its tests one after another in that thread,
// since they share the class's database.
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
abstract class RigRoundTrip {
    static final Duration LIMIT = Duration.ofMinutes(5);

    Rig rig;
    RigInstall install;
    PluginFixture plugin;
    Path executable;
    Path config;
    Path logs;
    private String source;
    private Map<String, TableDigest> expected;

    /** The plugin under test, not yet started. */
    abstract PluginFixture newFixture();

    /** Options added to the fixture's working config. */
    abstract Map<String, String> extraOptions();

    /** gpbackup flags for data compression with this plugin. */
    abstract List<String> compressionFlags();

    /** Checks after a filtered restore of single-data-file backup {@code timestamp}. */
    abstract void afterFilteredRestore(String timestamp) throws Exception;

    /** Checks after backup {@code first} and backup {@code second} of the same database, with a few changes in between. */
    abstract void afterRepeatBackup(String first, String second) throws Exception;

    /** Bytes the plugin's storage holds now, after reclaiming what nothing references any more. */
    abstract long spaceHeld() throws Exception;

    @BeforeAll
    void start() throws Exception {
        rig = Rig.prepared();
        if (rig == null) {
            return;
        }
        plugin = newFixture();
        install = RigInstall.create(rig, plugin.name(), "");
        plugin.start(install.root());
        Map<String, String> options = new LinkedHashMap<>(plugin.options());
        options.putAll(extraOptions());
        logs = install.directory("logs");
        options.put("log_directory", logs.toString());
        executable = install.executable(plugin.executable().getFileName().toString());
        config = install.config(plugin.name() + "_roundtrip.yaml", executable, options);
        source = database("source");
        createSource(source);
        expected = GpTables.digests(rig, source);
    }

    @AfterAll
    void stop() throws Exception {
        List<String> databases = plugin == null ? List.of()
                : Stream.of("source", "changing", "unique", "jobs", "sdf", "subset", "schema", "queue", "repeat", "meta").map(this::database).toList();
        RigInstall.release(rig, databases, plugin, install);
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void jobsBackupRestoresAnEqualDatabase() throws Exception {
        String ts = backup(withCompression("--dbname", source, "--jobs", "4"));
        restoreAndCompare(ts, database("jobs"), expected, "--jobs", "4");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void singleDataFileBackupRestoresWholeAndFiltered() throws Exception {
        String ts = backup("--dbname", source, "--single-data-file", "--no-compression");
        restoreAndCompare(ts, database("sdf"), expected);
        restoreAndCompare(ts, database("subset"), only(expected, t -> t.equals("sales.orders") || t.equals("hr.employees")),
                "--include-table", "sales.orders", "--include-table", "hr.employees");
        restoreAndCompare(ts, database("schema"), only(expected, t -> !t.startsWith("sales.")), "--exclude-schema", "sales");
        afterFilteredRestore(ts);
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void singleDataFileWithCopyQueueRestores() throws Exception {
        String ts = backup("--dbname", source, "--single-data-file", "--no-compression", "--copy-queue-size", "4");
        restoreAndCompare(ts, database("queue"), expected, "--copy-queue-size", "4");
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void repeatBackupAfterChangesRestoresTheNewState() throws Exception {
        String db = database("changing");
        createSource(db);
        String first = backup("--dbname", db, "--single-data-file", "--no-compression");
        // Changes as a day brings them: a run of updated orders (5%), new orders, a new table.
        rig.execute(db, "UPDATE sales.orders SET note = 'changed ' || id WHERE id BETWEEN 10001 AND 13000",
                "INSERT INTO sales.orders SELECT g, g % 97, g * 0.01, 'new ' || g FROM generate_series(60001, 61000) g",
                "CREATE TABLE hr.reviews (id int, employee int, text text) DISTRIBUTED BY (id)",
                "INSERT INTO hr.reviews SELECT g, g % 500, 'review ' || md5(g::text) FROM generate_series(1, 300) g");
        String second = backup("--dbname", db, "--single-data-file", "--no-compression");
        restoreAndCompare(second, database("repeat"), GpTables.digests(rig, db));
        afterRepeatBackup(first, second);
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void metadataOnlyBackupRestoresEveryTableEmpty() throws Exception {
        String ts = backup("--dbname", source, "--metadata-only");
        String db = database("meta");
        restore(ts, db);
        Map<String, TableDigest> restored = GpTables.digests(rig, db);
        assertEquals(expected.keySet(), restored.keySet(), "every table is there");
        restored.forEach((table, d) -> assertEquals(0, d.rows(), table + " is empty"));
        rig.dropDatabase(db);
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void deleteBackupRemovesItAndFreesItsSpace() throws Exception {
        String db = database("unique");
        rig.dropDatabase(db);
        rig.execute("postgres", "CREATE DATABASE " + db);
        // random(): no other backup holds these bytes, so deleting this one must free them.
        rig.execute(db, "CREATE TABLE noise (id int, r text) DISTRIBUTED BY (id)",
                "INSERT INTO noise SELECT g, md5(random()::text) || md5(random()::text) || md5(random()::text) FROM generate_series(1, 40000) g");
        long before = spaceHeld();
        String ts = backup("--dbname", db, "--single-data-file", "--no-compression");
        long withBackup = spaceHeld();
        assertTrue(withBackup > before, "the backup takes space: " + before + " -> " + withBackup + " bytes");
        // What gpbackup_manager delete-backup does (it is not part of open-source gpbackup): delete_backup on the coordinator.
        AsGpadmin.Outcome delete = rig.run(install.work(), install.work().resolve("delete_backup-" + ts + ".log"), LIMIT,
                List.of(executable.toString(), "delete_backup", config.toString(), ts));
        assertTrue(delete.succeeded(), delete.describe());
        long after = spaceHeld();
        System.out.printf("%s: delete_backup %s: space held %d -> %d -> %d bytes%n", plugin.name(), ts, before, withBackup, after);
        assertTrue(after <= before + (withBackup - before) / 10, "at least 90% of the backup's space came back: " + before + " -> " + withBackup + " -> " + after);
        AsGpadmin.Outcome gone = install.gprestore(LIMIT, ts, "--plugin-config", config.toString(), "--redirect-db", database("jobs"), "--create-db");
        assertFalse(gone.succeeded(), "a deleted backup cannot be restored");
    }

    String backup(String... args) throws Exception {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.addAll(List.of("--plugin-config", config.toString()));
        return install.gpbackup(LIMIT, all.toArray(String[]::new));
    }

    private String[] withCompression(String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.addAll(compressionFlags());
        return all.toArray(String[]::new);
    }

    private void restore(String ts, String db, String... args) throws Exception {
        rig.dropDatabase(db);
        List<String> all = new ArrayList<>(List.of("--plugin-config", config.toString(), "--redirect-db", db, "--create-db"));
        all.addAll(Arrays.asList(args));
        AsGpadmin.Outcome o = install.gprestore(LIMIT, ts, all.toArray(String[]::new));
        assertTrue(o.succeeded(), o.describe());
    }

    private void restoreAndCompare(String ts, String db, Map<String, TableDigest> want, String... args) throws Exception {
        restore(ts, db, args);
        assertEquals(List.of(), DatabaseDigest.compare(want, GpTables.digests(rig, db)), "restore of " + ts + " into " + db);
        rig.dropDatabase(db);
    }

    private static Map<String, TableDigest> only(Map<String, TableDigest> all, Predicate<String> keep) {
        Map<String, TableDigest> out = new LinkedHashMap<>();
        all.forEach((k, v) -> {
            if (keep.test(k)) {
                out.put(k, v);
            }
        });
        return out;
    }

    private String database(String suffix) {
        return "rig_" + plugin.name() + "_" + suffix;
    }

    /**
     * Two schemas of tables of different shapes and sizes, one empty, one partitioned, text that
     * CSV must quote (commas, quotes, newlines, backslashes) and NULLs. Deterministic contents.
     */
    private void createSource(String db) throws Exception {
        rig.dropDatabase(db);
        rig.execute("postgres", "CREATE DATABASE " + db);
        rig.execute(db,
                "CREATE SCHEMA sales", "CREATE SCHEMA hr",
                "CREATE TABLE sales.orders (id bigint, customer int, amount numeric(12,2), note text) DISTRIBUTED BY (id)",
                "INSERT INTO sales.orders SELECT g, g % 997, g * 0.37, CASE WHEN g % 50 = 0 THEN NULL ELSE 'order ' || g || ', \"rush\"' || E'\\n' || md5(g::text) END"
                        + " FROM generate_series(1, 60000) g",
                "CREATE TABLE sales.customers (id int, name text, city text) DISTRIBUTED BY (id)",
                "INSERT INTO sales.customers SELECT g, 'customer ' || g, (ARRAY['Oslo', 'Lyon', 'Porto', E'back\\\\slash'])[1 + g % 4] FROM generate_series(1, 2000) g",
                "CREATE TABLE sales.returns (id int, order_id bigint, reason text) DISTRIBUTED RANDOMLY",
                "CREATE TABLE hr.employees (id int, name text, salary numeric, hired date) DISTRIBUTED BY (id)",
                "INSERT INTO hr.employees SELECT g, 'employee ' || g, 3000 + g, date '2001-01-01' + g FROM generate_series(1, 500) g",
                "CREATE TABLE hr.notes (id int, body text) DISTRIBUTED RANDOMLY",
                "INSERT INTO hr.notes SELECT g, repeat(md5(g::text), 1 + g % 40) FROM generate_series(1, 300) g",
                "CREATE TABLE public.events (id int, kind text, payload text) DISTRIBUTED BY (id)"
                        + " PARTITION BY RANGE (id) (START (1) END (30001) EVERY (10000))",
                "INSERT INTO public.events SELECT g, (ARRAY['view', 'click', 'buy'])[1 + g % 3], md5(g::text) FROM generate_series(1, 30000) g");
    }
}
