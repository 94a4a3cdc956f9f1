package io.gpdedup.e2e.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.pg.BackupResult;
import io.gpdedup.pg.DatabaseGenerator;
import io.gpdedup.pg.DatabaseMutator;
import io.gpdedup.pg.GenerationPlan;
import io.gpdedup.pg.PgServer;
import io.gpdedup.pg.SnapshotBackup;
import io.gpdedup.pg.TableFilter;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The dedup target: after the default {@code pg mutate} (5% of each table updated in one
 * clustered id range, 2% appended, one table truncated), a repeat backup through
 * gpbackup_dedup_plugin sends at most 15% of the bytes the first backup sent. Each mode gets a
 * fresh store, so the first backup really starts from nothing.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PgRepeatBackupTest {
    private static final double MAX_REPEAT_SHARE = 0.15;

    @TempDir
    static Path dir;

    private static PgServer pg;

    @BeforeAll
    static void start() throws Exception {
        pg = PgServer.builder().start();
    }

    @AfterAll
    static void stop() throws Exception {
        if (pg != null) {
            pg.close();
        }
    }

    @ParameterizedTest(name = "single data file {0}")
    @ValueSource(booleans = {false, true})
    void repeatBackupAfterDefaultMutateSendsAtMostFifteenPercent(boolean singleDataFile) throws Exception {
        String db = singleDataFile ? "repeat_sdf" : "repeat_jobs";
        pg.createDatabase(db);
        String url = pg.jdbcUrl(db);
        // Few tables for the bytes: scaled-down tables of a few chunks would measure chunk boundaries, not the change.
        DatabaseGenerator.generate(url, "gen", GenerationPlan.of(10, 40_000_000, 31), 2, false);
        try (DedupTarget target = DedupTarget.start(dir.resolve(db))) {
            SnapshotBackup.Options options = new SnapshotBackup.Options(url, target.plugin(), dir.resolve(db + "-local"), singleDataFile, 2,
                    TableFilter.ALL, "first");
            BackupResult first = new SnapshotBackup(options).run();
            DatabaseMutator.Result change = DatabaseMutator.mutate(url, DatabaseMutator.Settings.standard("gen", 2));
            assertNotNull(change.truncated());
            BackupResult repeat = new SnapshotBackup(options).run();

            assertNotNull(first.dedup());
            assertNotNull(repeat.dedup());
            assertEquals(first.dedup().newBytes(), first.dedup().logicalBytes(), "the first backup found nothing in the fresh store");
            double share = (double) repeat.dedup().sentBytes() / first.dedup().sentBytes();
            System.out.printf("repeat backup (%s) sent %d of %d bytes = %.1f%%; new %d of %d logical bytes%n", singleDataFile ? "single data file" : "jobs",
                    repeat.dedup().sentBytes(), first.dedup().sentBytes(), 100 * share, repeat.dedup().newBytes(), repeat.dedup().logicalBytes());
            assertTrue(share <= MAX_REPEAT_SHARE, String.format("repeat sent %.1f%% of the first backup's bytes", 100 * share));
            assertTrue(repeat.dedup().newBytes() > 0, "the change did reach the store");
        }
    }
}
