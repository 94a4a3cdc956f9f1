package io.gpdedup.pg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What other sessions do while a backup runs. A TRUNCATE queued behind worker 0's ACCESS SHARE lock
 * must make the copy workers' {@code LOCK ... NOWAIT} fail and hand the table to worker 0 (a plain
 * COPY would queue behind the TRUNCATE, which waits for worker 0: a hang); rows committed after
 * the snapshot must not be in the backup although the copy workers start later.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConcurrentChangesTest {
    private static TestPostgres pg;

    @TempDir
    Path dir;

    @BeforeAll
    static void server() throws Exception {
        pg = TestPostgres.shared();
    }

    @Test
    void truncateQueuedDuringJobsBackupGoesToWorkerZeroWithoutDeadlock() throws Exception {
        String source = pg.newDatabase("truncate");
        DatabaseGenerator.generate(source, "gen", GenerationPlan.of(12, 4_000_000, 3), 2, false);
        String victim = "gen.large_001";
        Map<String, DatabaseDigest.TableDigest> before = digests(source);
        assertTrue(before.get(victim).rows() > 0);

        Connection other = Jdbc.open(source);
        CopyOnWriteArrayList<String> handedOver = new CopyOnWriteArrayList<>();
        AtomicReference<CompletableFuture<Void>> truncate = new AtomicReference<>();
        BackupListener listener = new BackupListener() {
            @Override
            public void locksHeld(List<TableRef> tables) {
                truncate.set(CompletableFuture.runAsync(() -> {
                    try {
                        Jdbc.execute(other, "TRUNCATE " + victim);
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }));
                awaitWaitingLock(source, victim);
            }

            @Override
            public void deferred(TableRef table, int worker) {
                assertTrue(worker > 0);
                handedOver.add(table.displayName());
            }
        };
        PluginRunner plugin = ScriptPlugin.create(dir.resolve("plugin"), null);
        BackupResult b = new SnapshotBackup(new SnapshotBackup.Options(source, plugin, dir.resolve("local"), false, 3, TableFilter.ALL, "t"))
                .listener(listener).run();

        assertEquals(List.of(victim), b.deferredTables(), "the truncated table, and only it, went to worker 0");
        assertEquals(List.of(victim), handedOver);
        truncate.get().get(60, TimeUnit.SECONDS);
        other.close();
        assertEquals(0, digests(source).get(victim).rows(), "the TRUNCATE went through once the backup ended");

        String target = pg.newDatabase("truncate_restored");
        new BackupRestore(new BackupRestore.Options(target, plugin, dir.resolve("local"), b.timestamp(), 2, TableFilter.ALL, true, "r")).run();
        assertEquals(List.of(), DatabaseDigest.compare(before, digests(target)), "the backup holds the database as it was before the TRUNCATE");
    }

    @Test
    void rowsCommittedAfterTheSnapshotAreNotBackedUp() throws Exception {
        String source = pg.newDatabase("snapshot");
        DatabaseGenerator.generate(source, "gen", GenerationPlan.of(10, 2_000_000, 4), 2, false);
        Map<String, DatabaseDigest.TableDigest> before = digests(source);
        BackupListener listener = new BackupListener() {
            @Override
            public void locksHeld(List<TableRef> tables) {
                // Row-level changes are compatible with ACCESS SHARE: they commit while the backup holds its locks.
                try (Connection c = Jdbc.open(source)) {
                    Jdbc.execute(c, "INSERT INTO gen.small_001 SELECT id + (SELECT max(id) FROM gen.small_001), updated_at, amount, status, note FROM gen.small_001");
                    Jdbc.execute(c, "DELETE FROM gen.large_001 WHERE id % 3 = 0");
                    Jdbc.execute(c, "UPDATE gen.small_002 SET status = 'changed'");
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        };
        PluginRunner plugin = ScriptPlugin.create(dir.resolve("plugin"), null);
        for (boolean singleDataFile : new boolean[] {false, true}) {
            BackupResult b = new SnapshotBackup(new SnapshotBackup.Options(source, plugin, dir.resolve("local"), singleDataFile, 3,
                    TableFilter.ALL, "t")).listener(listener).run();
            String target = pg.newDatabase("snapshot_restored");
            new BackupRestore(new BackupRestore.Options(target, plugin, dir.resolve("local"), b.timestamp(), 2, TableFilter.ALL, true, "r")).run();
            assertEquals(List.of(), DatabaseDigest.compare(before, digests(target)), "single data file: " + singleDataFile);
            before = digests(source);
            assertFalse(before.equals(digests(target)), "the source did change during the backup");
        }
    }

    private static Map<String, DatabaseDigest.TableDigest> digests(String url) throws Exception {
        try (Connection c = Jdbc.open(url)) {
            return DatabaseDigest.of(c, TableFilter.ALL);
        }
    }

    /** Until pg_locks shows an ungranted lock request on {@code table}: the TRUNCATE is queued. */
    private static void awaitWaitingLock(String url, String table) {
        try (Connection c = Jdbc.open(url);
                PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM pg_locks WHERE relation = ?::regclass AND NOT granted")) {
            ps.setString(1, table);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                try (ResultSet r = ps.executeQuery()) {
                    r.next();
                    if (r.getLong(1) > 0) {
                        return;
                    }
                }
                Thread.sleep(20);
            }
            throw new IllegalStateException("the TRUNCATE never queued on " + table);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
