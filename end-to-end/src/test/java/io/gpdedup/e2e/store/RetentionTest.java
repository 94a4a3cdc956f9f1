package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.PluginShell;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Space comes back by itself: backups through {@code dist/bin/gpbackup_dedup_plugin}, then
 * {@code delete_backup} as gpbackup_manager sends it, and the store's own collection shrinks the
 * unit with no admin command (config {@code gc-after-delete-seconds: 1}). Then {@code backups}
 * reports files, logical, new and stored bytes per backup, and {@code prune} applies a keep-last policy:
 * a dry run deletes nothing, the real one deletes the older backups, frees their space, and the
 * kept ones still restore.
 */
@Timeout(300)
class RetentionTest {
    private static final String PASSWORD = "retention-password";
    private static final int BACKUP_BYTES = 3_000_000;

    @TempDir
    Path dir;

    private PluginShell plugin;
    private Path cfg;
    private StoreAdmin admin;

    @Test
    void deletedBackupsAreCollectedByTheStoreAndPruneKeepsThePolicy() throws Exception {
        Path home = dir.resolve("store-home");
        StoreProcess.writeConfig(home, "gc-after-delete-seconds: 1\ngc-max-delay-seconds: 5\n", PASSWORD, 1_000);
        Path passwordFile = Files.writeString(dir.resolve("password"), PASSWORD + "\n");
        Path agentDir = dir.resolve("agent");
        try (StoreProcess store = StoreProcess.start(home)) {
            plugin = new PluginShell(Dist.executable(DedupFixture.EXECUTABLE), Files.createDirectories(dir.resolve("cwd")),
                    Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
            cfg = DedupFixture.writeConfig(dir.resolve("plugin.yaml"), store.port(), PASSWORD, dir.resolve("logs"), "");
            admin = new StoreAdmin(dir, home, List.of("--port", String.valueOf(store.port()), "--unit", StoreProcess.UNIT,
                    "--user", StoreProcess.USER, "--password-file", passwordFile.toString()));

            List<String> first = List.of("20261101100000", "20261102100000", "20261103100000");
            for (int i = 0; i < first.size(); i++) {
                backUp(first.get(i), SeededBytes.array(100 + i, BACKUP_BYTES));
            }
            long before = physicalBytes();
            plugin.run("delete_backup", cfg.toString(), first.get(0)).assertSucceeded();
            plugin.run("delete_backup", cfg.toString(), first.get(1)).assertSucceeded();
            long after = awaitPhysicalBelow(before * 2 / 3);
            assertTrue(after <= before / 3 + (64 << 10), "physical bytes " + before + " before the deletes, " + after + " after");
            String log = Files.readString(home.resolve("store.err"));
            assertTrue(log.contains("garbage collection after deletes"), log);
            assertTrue(log.contains("deleted 1 objects (prefix cluster1/backups/20261101/20261101100000/)"), log);

            // Three more: a new one, the same data again (nothing new), and a new one.
            byte[] repeated = SeededBytes.array(200, BACKUP_BYTES);
            backUp("20261110100000", repeated);
            backUp("20261111100000", repeated);
            backUp("20261112100000", SeededBytes.array(201, BACKUP_BYTES));
            JsonNode backups = admin.run("backups", "--json", "--directory", "cluster1", "--stored-bytes").json();
            assertEquals(4, backups.size(), backups::toPrettyString);
            JsonNode same = backups.get(2);
            assertEquals("20261111100000", same.get("timestamp").asText());
            assertEquals(1, same.get("files").asInt());
            assertEquals(BACKUP_BYTES, same.get("logical_bytes").asLong());
            assertEquals(0, same.get("new_bytes").asLong(), backups::toPrettyString);
            assertEquals(0, same.get("stored_bytes").asLong(), backups::toPrettyString);
            JsonNode fresh = backups.get(3);
            assertEquals(BACKUP_BYTES, fresh.get("new_bytes").asLong(), backups::toPrettyString);
            // Random bytes do not compress: stored about as they came, never nothing.
            long stored = fresh.get("stored_bytes").asLong();
            assertTrue(stored > BACKUP_BYTES * 0.99 && stored < BACKUP_BYTES * 1.01, backups::toPrettyString);
            String table = admin.run("backups").stdout();
            assertTrue(table.contains("20261112100000") && table.contains("cluster1"), table);

            StoreAdmin.Result noRule = admin.run("prune", "--directory", "cluster1");
            assertEquals(2, noRule.exit(), noRule::toString);
            assertTrue(noRule.stderr().contains("that would delete every backup"), noRule::toString);
            JsonNode dry = admin.run("prune", "--directory", "cluster1", "--keep-last", "2", "--dry-run", "--json").json();
            assertEquals(2, dry.get("deleted").size(), dry::toPrettyString);
            assertEquals(4, admin.run("backups", "--json").json().size(), "a dry run deleted something");

            long beforePrune = physicalBytes();
            StoreAdmin.Result pruned = admin.run("prune", "--directory", "cluster1", "--keep-last", "2");
            assertEquals(0, pruned.exit(), pruned::toString);
            assertTrue(pruned.stdout().contains("deleted 20261103100000") && pruned.stdout().contains("deleted 20261110100000"), pruned::toString);
            assertTrue(pruned.stdout().contains("keep    20261112100000  (last 1)"), pruned::toString);
            long afterPrune = physicalBytes();
            assertTrue(afterPrune < beforePrune - BACKUP_BYTES / 2, "physical bytes " + beforePrune + " before prune, " + afterPrune + " after");
            List<String> left = new ArrayList<>();
            admin.run("backups", "--json").json().forEach(b -> left.add(b.get("timestamp").asText()));
            assertEquals(List.of("20261111100000", "20261112100000"), left);
            assertArrayEquals(repeated, plugin.run("restore_data", cfg.toString(), key("20261111100000")).assertSucceeded().stdout());
            System.out.println("retention: " + before + " physical bytes before deleting 2 of 3 backups of " + BACKUP_BYTES
                    + " random bytes, " + after + " after the store's own collection; prune --keep-last 2: " + beforePrune + " -> " + afterPrune);
        } finally {
            HostAgents.kill(agentDir);
        }
    }

    private void backUp(String timestamp, byte[] data) {
        plugin.run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), key(timestamp)).assertSucceeded();
    }

    private long physicalBytes() throws Exception {
        return admin.run("stat", "--json").json().get("physical_bytes").asLong();
    }

    /** Polls {@code stat} until the unit's physical bytes fall below {@code limit}; the test's timeout bounds the wait. */
    private long awaitPhysicalBelow(long limit) throws Exception {
        while (true) {
            long now = physicalBytes();
            if (now < limit) {
                return now;
            }
            Thread.sleep(500);
        }
    }

    private static String key(String ts) {
        return "/data/gpseg0/backups/" + ts.substring(0, 8) + "/" + ts + "/gpbackup_0_" + ts + "_1";
    }
}
