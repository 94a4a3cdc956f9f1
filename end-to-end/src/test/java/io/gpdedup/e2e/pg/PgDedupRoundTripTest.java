package io.gpdedup.e2e.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.pg.BackupRestore;
import io.gpdedup.pg.BackupResult;
import io.gpdedup.pg.DatabaseDigest;
import io.gpdedup.pg.DatabaseGenerator;
import io.gpdedup.pg.GenerationPlan;
import io.gpdedup.pg.Jdbc;
import io.gpdedup.pg.PgServer;
import io.gpdedup.pg.RestoreResult;
import io.gpdedup.pg.SnapshotBackup;
import io.gpdedup.pg.TableFilter;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Jobs and single-data-file backups of a generated database through gpbackup_dedup_plugin, restored and compared. */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class PgDedupRoundTripTest {
    @TempDir
    static Path dir;

    private static PgServer pg;
    private static DedupTarget target;
    private static String source;
    private static Map<String, DatabaseDigest.TableDigest> expected;

    @BeforeAll
    static void start() throws Exception {
        pg = PgServer.builder().start();
        target = DedupTarget.start(dir.resolve("target"));
        pg.createDatabase("source");
        source = pg.jdbcUrl("source");
        DatabaseGenerator.generate(source, "gen", GenerationPlan.of(12, 12_000_000, 21), 2, false);
        expected = digests(source, TableFilter.ALL);
    }

    @AfterAll
    static void stop() throws Exception {
        if (target != null) {
            target.close();
        }
        if (pg != null) {
            pg.close();
        }
    }

    @Test
    void jobsBackupRestoresIntoAnEqualDatabase() throws Exception {
        BackupResult b = backup(false, 2);
        assertEquals(12, b.tables());
        assertNotNull(b.dedup(), "the dedup plugin logged its counts");
        assertEquals(b.tables() + 3, b.dedup().calls(), "one backup_data per table, three backup_file");
        RestoreResult r = restore(b, "jobs_restored", 2, TableFilter.ALL);
        assertEquals(b.rows(), r.rows());
        assertEquals(List.of(), DatabaseDigest.compare(expected, digests(pg.jdbcUrl("jobs_restored"), TableFilter.ALL)));
    }

    @Test
    void singleDataFileBackupRestoresWholeAndInPart() throws Exception {
        BackupResult b = backup(true, 2);
        assertNotNull(b.dedup());
        assertEquals(5, b.dedup().calls(), "one stream; metadata, TOC, segment TOC and config files: " + b.dedup());
        RestoreResult whole = restore(b, "sdf_restored", 1, TableFilter.ALL);
        assertFalse(whole.subset());
        assertEquals(List.of(), DatabaseDigest.compare(expected, digests(pg.jdbcUrl("sdf_restored"), TableFilter.ALL)));

        TableFilter some = TableFilter.includeTables(List.of("gen.small_001", "gen.small_003", "gen.empty_001"));
        RestoreResult part = restore(b, "sdf_part", 1, some);
        assertTrue(part.subset(), "restore_data_subset was used");
        assertEquals(3, part.tables());
        assertEquals(List.of(), DatabaseDigest.compare(digests(source, some), digests(pg.jdbcUrl("sdf_part"), TableFilter.ALL)));
    }

    private static BackupResult backup(boolean singleDataFile, int workers) throws Exception {
        return new SnapshotBackup(new SnapshotBackup.Options(source, target.plugin(), dir.resolve("local"), singleDataFile, workers,
                TableFilter.ALL, singleDataFile ? "sdf" : "jobs")).run();
    }

    private static RestoreResult restore(BackupResult b, String database, int jobs, TableFilter filter) throws Exception {
        pg.createDatabase(database);
        return new BackupRestore(new BackupRestore.Options(pg.jdbcUrl(database), target.plugin(), dir.resolve("restore-local"), b.timestamp(),
                jobs, filter, true, "restore")).run();
    }

    static Map<String, DatabaseDigest.TableDigest> digests(String url, TableFilter filter) throws Exception {
        try (Connection c = Jdbc.open(url)) {
            return DatabaseDigest.of(c, filter);
        }
    }
}
