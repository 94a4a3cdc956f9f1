package io.gpdedup.e2e.rig;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpdedup.dedup.DedupPlugin;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.pg.DatabaseDigest;
import io.gpdedup.pg.DatabaseDigest.TableDigest;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * A skewed database backed up with {@code --single-data-file} through the dedup plugin and restored,
 * twice in a row (the second backup into a store that holds the first), and no restore may hang.
 * Layout: many small tables first (rows on both segments, some empty), then a large table whose
 * rows all sit on segment 0 and another whose rows all sit on segment 1.
 *
 * <p>In such a restore each segment's gpbackup_helper reads one {@code restore_data} stream and
 * feeds it table by table into COPY, in the same table order on every segment, and waits for the
 * next table's COPY before it reads on; both streams are served by one host agent and share its
 * memory. When the stream that starts first holds all the memory for fetching ahead while its
 * helper waits for a table the other segment has not delivered, and the other stream can get none,
 * nothing moves (a shared 8 MiB fetch window hung this layout every time). The agent here runs on a
 * 16 MiB memory budget (instead of half its heap), so that no stream can fetch ahead beyond its own
 * batch and about 12 MB per segment is more than the memory there is; a hang fails the cycle after
 * {@link #RESTORE_LIMIT}, with gprestore and its helpers stopped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(RigReady.class)
// Beside the rest of the suite, in a thread of its own (see RigRoundTrip).
@Execution(ExecutionMode.CONCURRENT)
@Timeout(value = 30, unit = TimeUnit.MINUTES)
class SkewedRestoreTest {
    /** The layout hung every restore while streams shared their fetch window, so two cycles catch it; more only cost CI time. */
    private static final int CYCLES = 2;
    private static final long BUDGET_BYTES = 16L << 20;
    private static final int SMALL_TABLES = 40;
    /** Rows of about 970 bytes: some 12.6 MB of COPY text per large table. */
    private static final int LARGE_ROWS = 13_000;
    private static final Duration BACKUP_LIMIT = Duration.ofMinutes(5);
    /** A healthy restore of this database takes seconds, also on a loaded 2-core machine. */
    private static final Duration RESTORE_LIMIT = Duration.ofSeconds(150);
    private static final String SOURCE = "rig_skew_source";
    private static final String TARGET = "rig_skew_restored";

    private Rig rig;
    private RigInstall install;
    private DedupFixture dedup;
    private Path config;

    @BeforeAll
    void start() throws Exception {
        rig = Rig.prepared();
        if (rig == null) {
            return;
        }
        install = RigInstall.create(rig, "skew", "-D" + DedupPlugin.BUDGET_PROPERTY + "=" + BUDGET_BYTES);
        dedup = new DedupFixture();
        dedup.start(install.root());
        Map<String, String> options = new LinkedHashMap<>(dedup.options());
        options.put("log_directory", install.directory("logs").toString());
        config = install.config("dedup_skew.yaml", install.executable(DedupFixture.EXECUTABLE), options);
        createSkewedSource();
    }

    @AfterAll
    void stop() throws Exception {
        RigInstall.release(rig, List.of(TARGET, SOURCE), dedup, install);
    }

    @Test
    @Execution(ExecutionMode.SAME_THREAD)
    void singleDataFileRoundTripsNeverHang() throws Exception {
        for (int cycle = 1; cycle <= CYCLES; cycle++) {
            // Each cycle backs up a slightly different database, so each restore is checked against new contents.
            rig.execute(SOURCE, "UPDATE large_seg0 SET t = md5(t) WHERE n % 97 = " + cycle, "UPDATE large_seg1 SET t = md5(t) WHERE n % 89 = " + cycle,
                    "INSERT INTO small_001 VALUES (" + (1000 + cycle) + ", 'cycle " + cycle + "')");
            Map<String, TableDigest> expected = GpTables.digests(rig, SOURCE);
            String ts = install.gpbackup(BACKUP_LIMIT, "--dbname", SOURCE, "--plugin-config", config.toString(), "--single-data-file", "--no-compression");
            rig.dropDatabase(TARGET);
            AsGpadmin.Outcome restore = install.gprestore(RESTORE_LIMIT, ts, "--plugin-config", config.toString(), "--redirect-db", TARGET, "--create-db");
            if (restore.timedOut()) {
                throw new AssertionError("cycle " + cycle + " of " + CYCLES + ": the single-data-file restore of " + ts + " hung: " + restore.describe());
            }
            if (!restore.succeeded()) {
                throw new AssertionError("cycle " + cycle + " of " + CYCLES + ": " + restore.describe());
            }
            assertEquals(List.of(), DatabaseDigest.compare(expected, GpTables.digests(rig, TARGET)), "cycle " + cycle + ": restored contents");
        }
    }

    /** Small tables first (created first, so backed up and restored first), then one large table per segment. */
    private void createSkewedSource() throws SQLException {
        rig.dropDatabase(TARGET);
        rig.dropDatabase(SOURCE);
        rig.execute("postgres", "CREATE DATABASE " + SOURCE);
        List<String> ddl = new ArrayList<>();
        for (int i = 1; i <= SMALL_TABLES; i++) {
            String name = String.format("small_%03d", i);
            ddl.add("CREATE TABLE " + name + " (id int, note text) DISTRIBUTED BY (id)");
            // Every fourth table is empty; the first has rows on both segments.
            int rows = i % 4 == 0 ? 0 : 5 + (i * 7) % 60;
            ddl.add("INSERT INTO " + name + " SELECT g, 'row ' || g || ' of " + name + "' FROM generate_series(1, " + rows + ") g");
        }
        rig.execute(SOURCE, ddl.toArray(String[]::new));
        Map<Integer, Integer> keyOnSegment = keyPerSegment();
        for (int segment : List.of(0, 1)) {
            String table = "large_seg" + segment;
            rig.execute(SOURCE, "CREATE TABLE " + table + " (k int, n int, t text) DISTRIBUTED BY (k)",
                    "INSERT INTO " + table + " SELECT " + keyOnSegment.get(segment) + ", g, repeat(md5((g * " + (segment + 3) + ")::text), 30) FROM generate_series(1, "
                            + LARGE_ROWS + ") g");
            assertEquals(Map.of(segment, (long) LARGE_ROWS), GpTables.rowsPerSegment(rig, SOURCE, table), table + " lives on segment " + segment + " only");
        }
        assertEquals(2, GpTables.rowsPerSegment(rig, SOURCE, "small_001").size(), "small_001 has rows on both segments");
    }

    /** A distribution key value that hashes to each segment. */
    private Map<Integer, Integer> keyPerSegment() throws SQLException {
        Map<Integer, Integer> out = new LinkedHashMap<>();
        try (Connection c = rig.connect(SOURCE); Statement s = c.createStatement()) {
            s.execute("CREATE TEMP TABLE probe (k int) DISTRIBUTED BY (k)");
            s.execute("INSERT INTO probe SELECT generate_series(1, 100)");
            try (ResultSet r = s.executeQuery("SELECT gp_segment_id, min(k) FROM probe GROUP BY 1 ORDER BY 1")) {
                while (r.next()) {
                    out.put(r.getInt(1), r.getInt(2));
                }
            }
        }
        assertEquals(2, out.size(), "the rig has two primary segments");
        return out;
    }
}
