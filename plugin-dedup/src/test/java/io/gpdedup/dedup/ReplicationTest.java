package io.gpdedup.dedup;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.StoreClient;
import io.gpdedup.plugin.api.CommandDispatcher;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.wire.ReplicationJobStatus;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** replicate_backup / delete_replica, and replication of completed backups by the store, between two real stores. */
class ReplicationTest {
    @TempDir
    Path dir;
    private LoopbackStore primary;
    private LoopbackStore remote;
    private final DedupPlugin plugin = new DedupPlugin();

    @BeforeEach
    void start() {
        remote = LoopbackStore.start(dir.resolve("remote"));
        primary = LoopbackStore.startReplicatingTo(dir.resolve("primary"), remote.port());
    }

    @AfterEach
    void stop() {
        primary.close();
        remote.close();
    }

    private Path config(String name, LoopbackStore main, LoopbackStore second, String extra) throws IOException {
        Path cfg = dir.resolve("20261123045500_" + name + ".yaml");
        String s = "executablepath: /opt/gpdedup/bin/gpbackup_dedup_plugin\noptions:\n  hostname: 127.0.0.1\n  port: \"" + main.port()
                + "\"\n  username: " + LoopbackStore.USER + "\n  password: " + LoopbackStore.PASSWORD + "\n  storage_unit: " + LoopbackStore.UNIT
                + "\n  directory: cluster1\n  log_directory: " + dir.resolve("logs") + "\n" + extra;
        if (second != null) {
            s += "  remote_hostname: 127.0.0.1\n  remote_port: \"" + second.port() + "\"\n  remote_username: " + LoopbackStore.USER
                    + "\n  remote_password: " + LoopbackStore.PASSWORD + "\n  remote_storage_unit: " + LoopbackStore.UNIT + "\n  remote_directory: dr/cluster1\n";
        }
        Files.writeString(cfg, s);
        return cfg;
    }

    private record Result(int status, byte[] out, String err) {
        String text() {
            return new String(out, StandardCharsets.UTF_8);
        }
    }

    private Result run(InputStream in, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new CommandDispatcher(plugin).run(args, in, out, new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toByteArray(), err.toString(StandardCharsets.UTF_8));
    }

    private static String key(String ts, String file) {
        return "/data/gpseg0/backups/" + ts.substring(0, 8) + "/" + ts + "/" + file;
    }

    private UnitStats remoteStats() {
        try (StoreClient c = remote.connect()) {
            return c.stats();
        }
    }

    @Test
    void replicatesOnlyWhatTheRemoteLacksAndRestoresFromTheReplica() throws IOException {
        Path cfg = config("primary", primary, remote, "");
        byte[] v1 = DedupPluginTest.copyText(21, 3_000_000);
        byte[] v2 = v1.clone();
        for (int i = 1_000_000; i < 1_050_000; i++) {
            v2[i] = (byte) ('a' + i % 26);
        }
        String t1 = "20261123045500";
        String t2 = "20261124045500";
        assertEquals(0, run(new ByteArrayInputStream(v1), "backup_data", cfg.toString(), key(t1, "gpbackup_0_" + t1 + "_1")).status());
        assertEquals(0, run(new ByteArrayInputStream(v2), "backup_data", cfg.toString(), key(t2, "gpbackup_0_" + t2 + "_1")).status());

        Result r1 = run(InputStream.nullInputStream(), "replicate_backup", cfg.toString(), t1);
        assertEquals(0, r1.status(), r1.err());
        UnitStats afterFirst = remoteStats();
        Result again = run(InputStream.nullInputStream(), "replicate_backup", cfg.toString(), t1);
        assertEquals(1, again.status());
        assertTrue(again.err().contains("already exists on the remote store"), again.err());

        Result r2 = run(InputStream.nullInputStream(), "replicate_backup", cfg.toString(), t2);
        assertEquals(0, r2.status(), r2.err());
        UnitStats afterSecond = remoteStats();
        long added = afterSecond.physicalBytes() - afterFirst.physicalBytes();
        assertTrue(added > 0 && added < afterFirst.physicalBytes() / 4,
                "the second backup differs in 50 KB: only its new chunks may travel, added " + added + " of " + afterFirst.physicalBytes());

        // gprestore from the replica: a config whose store and directory are the remote's.
        Path replica = dir.resolve("20261123045500_replica.yaml");
        Files.writeString(replica, Files.readString(config("tmp", remote, null, "")).replace("directory: cluster1", "directory: dr/cluster1"));
        Result restored = run(InputStream.nullInputStream(), "restore_data", replica.toString(), key(t2, "gpbackup_0_" + t2 + "_1"));
        assertEquals(0, restored.status(), restored.err());
        assertArrayEquals(v2, restored.out());

        Result d1 = run(InputStream.nullInputStream(), "delete_replica", cfg.toString(), t1);
        assertEquals(0, d1.status(), d1.err());
        assertEquals("", d1.text());
        Result d2 = run(InputStream.nullInputStream(), "delete_replica", cfg.toString(), t1);
        assertEquals(0, d2.status(), d2.err());
        assertTrue(d2.text().contains("already deleted"), d2.text());
        assertEquals(1, run(InputStream.nullInputStream(), "restore_data", replica.toString(), key(t1, "gpbackup_0_" + t1 + "_1")).status());
        // The primary is untouched.
        Result primaryCopy = run(InputStream.nullInputStream(), "restore_data", cfg.toString(), key(t1, "gpbackup_0_" + t1 + "_1"));
        assertArrayEquals(v1, primaryCopy.out());
    }

    /** gpbackup's teardown: the report written into the coordinator's directory, then stored with backup_file. */
    private void report(Path cfg, Path backupDir, String ts, String status) throws IOException {
        Path report = backupDir.resolve("gpbackup_" + ts + "_report");
        Files.writeString(report, "Apache Cloudberry Backup Report\n\ntimestamp key:         " + ts + "\n\nbackup status:         " + status
                + "\n" + (status.equals("Success") ? "" : "backup error:          ERROR: relation does not exist\n") + "\nsegment count:         2\n");
        assertEquals(0, run(InputStream.nullInputStream(), "backup_file", cfg.toString(), report.toString()).status());
    }

    private Path backupDirectory(String ts) throws IOException {
        return Files.createDirectories(dir.resolve("seg-1/backups/" + ts.substring(0, 8) + "/" + ts));
    }

    @Test
    void replicationOnQueuesACompletedBackupAndTheStoreCopiesIt() throws Exception {
        Path cfg = config("auto", primary, remote, "  replication: \"on\"\n");
        String t = "20261123045500";
        byte[] data = DedupPluginTest.copyText(22, 500_000);
        Path backupDir = backupDirectory(t);
        assertEquals(0, run(InputStream.nullInputStream(), "setup_plugin_for_backup", cfg.toString(), backupDir.toString(), "master", "\"-1\"").status());
        assertEquals(0, run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), key(t, "gpbackup_0_" + t + "_7")).status());
        report(cfg, backupDir, t, "Success");
        // Segment cleanups queue nothing; the coordinator's does.
        assertEquals(0, run(InputStream.nullInputStream(), "cleanup_plugin_for_backup", cfg.toString(), backupDir.toString(), "segment", "\"0\"").status());
        try (StoreClient c = primary.connect()) {
            assertEquals(List.of(), c.replicationJobs());
        }
        Result cleanup = run(InputStream.nullInputStream(), "cleanup_plugin_for_backup", cfg.toString(), backupDir.toString(), "master", "\"-1\"");
        assertEquals(0, cleanup.status(), cleanup.err());
        assertEquals("", cleanup.err());
        try (StoreClient c = primary.connect()) {
            ReplicationJobStatus job = c.replicationJobs().get(0);
            assertEquals("cluster1/backups/20261123/" + t + "/", job.source());
            assertEquals("dr/cluster1/backups/20261123/" + t + "/", job.target().prefix());
        }
        awaitRemoteObjects("dr/cluster1/backups/20261123/" + t + "/", 2);
        Path replica = dir.resolve("20261123045500_replica.yaml");
        Files.writeString(replica, Files.readString(config("tmp", remote, null, "")).replace("directory: cluster1", "directory: dr/cluster1"));
        Result restored = run(InputStream.nullInputStream(), "restore_data", replica.toString(), key(t, "gpbackup_0_" + t + "_7"));
        assertArrayEquals(data, restored.out());
    }

    @Test
    void aFailedBackupOrOneWithoutAReportIsNotQueued() throws Exception {
        Path cfg = config("auto", primary, remote, "  replication: \"on\"\n");
        String failed = "20261123045500";
        String unreported = "20261124045500";
        for (String t : List.of(failed, unreported)) {
            assertEquals(0, run(new ByteArrayInputStream(new byte[] {1, 2, 3}), "backup_data", cfg.toString(), key(t, "gpbackup_0_" + t + "_7")).status());
        }
        report(cfg, backupDirectory(failed), failed, "Failure");
        for (String t : List.of(failed, unreported)) {
            Result cleanup = run(InputStream.nullInputStream(), "cleanup_plugin_for_backup", cfg.toString(), backupDirectory(t).toString(),
                    "coordinator", "\"-1\"");
            assertEquals(0, cleanup.status(), cleanup.err());
        }
        try (StoreClient c = primary.connect()) {
            assertEquals(List.of(), c.replicationJobs());
        }
        String log = pluginLog();
        assertTrue(log.contains("backup " + failed + " not replicated: its report says Failure"), log);
        assertTrue(log.contains("[WARNING]:-backup " + unreported + " not replicated: no backup status in "), log);
    }

    @Test
    void aRemoteTheStoreDoesNotListIsNotQueuedAndTheHookSaysWhy() throws Exception {
        LoopbackStore unlisted = LoopbackStore.start(dir.resolve("unlisted"));
        try {
            Path cfg = config("auto", primary, unlisted, "  replication: \"on\"\n");
            String t = "20261123045500";
            Path backupDir = backupDirectory(t);
            assertEquals(0, run(new ByteArrayInputStream(new byte[] {4, 5, 6}), "backup_data", cfg.toString(), key(t, "gpbackup_0_" + t + "_7")).status());
            report(cfg, backupDir, t, "Success");
            Result cleanup = run(InputStream.nullInputStream(), "cleanup_plugin_for_backup", cfg.toString(), backupDir.toString(), "master", "\"-1\"");
            assertEquals(0, cleanup.status(), cleanup.err());
            assertTrue(pluginLog().contains("[WARNING]:-backup " + t + " not queued for replication: REPLICATE failed: replication to 127.0.0.1:"
                    + unlisted.port() + " refused: not among the replication-targets unit '" + LoopbackStore.UNIT + "' may copy to (dr (127.0.0.1:"
                    + remote.port() + "))"), pluginLog());
            try (StoreClient c = primary.connect()) {
                assertEquals(List.of(), c.replicationJobs());
            }
        } finally {
            unlisted.close();
        }
    }

    @Test
    void theCleanupHookSucceedsWhenTheStoreCannotQueue() throws Exception {
        Path cfg = config("auto", primary, remote, "  replication: \"on\"\n");
        String t = "20261123045500";
        Path backupDir = backupDirectory(t);
        assertEquals(0, run(new ByteArrayInputStream(new byte[] {1, 2, 3}), "backup_data", cfg.toString(), key(t, "gpbackup_0_" + t + "_7")).status());
        report(cfg, backupDir, t, "Success");
        primary.close();
        Result cleanup = run(InputStream.nullInputStream(), "cleanup_plugin_for_backup", cfg.toString(), backupDir.toString(), "master", "\"-1\"");
        assertEquals(0, cleanup.status(), cleanup.err());
        assertEquals("", cleanup.err());
        assertTrue(pluginLog().contains("[WARNING]:-backup " + t + " not queued for replication: cannot connect to gpdedup-store"), pluginLog());
    }

    @Test
    void anEncryptedRemotePasswordNeedsNoKeyWhileReplicationIsOff() throws IOException {
        // gpbackup adds the .encrypt key only for password_encryption "on", or replication and remote_password_encryption both "on".
        Path cfg = config("off", primary, null, "  replication: \"off\"\n  remote_hostname: 127.0.0.1\n  remote_port: \"" + remote.port()
                + "\"\n  remote_username: " + LoopbackStore.USER + "\n  remote_password: bm90LWRlY3J5cHRhYmxlLXdpdGhvdXQta2V5\n"
                + "  remote_password_encryption: \"on\"\n  remote_storage_unit: " + LoopbackStore.UNIT + "\n");
        byte[] data = DedupPluginTest.copyText(23, 100_000);
        String t = "20261123045500";
        Result backup = run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), key(t, "gpbackup_0_" + t + "_7"));
        assertEquals(0, backup.status(), backup.err());
        assertArrayEquals(data, run(InputStream.nullInputStream(), "restore_data", cfg.toString(), key(t, "gpbackup_0_" + t + "_7")).out());
        // replicate_backup needs the remote whatever the switch says: there the missing key is an error.
        Result replicate = run(InputStream.nullInputStream(), "replicate_backup", cfg.toString(), t);
        assertEquals(1, replicate.status());
        assertTrue(replicate.err().contains("remote_password_encryption is on but the config has no 'gpbackup_dedup_plugin' key"), replicate.err());
    }

    private void awaitRemoteObjects(String prefix, int count) throws InterruptedException {
        long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(120);
        try (StoreClient c = remote.connect()) {
            while (c.list(prefix).size() < count) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError("the remote did not get " + count + " objects under " + prefix + ": " + c.list(prefix));
                }
                Thread.sleep(50);
            }
        }
    }

    private String pluginLog() throws IOException {
        try (var files = Files.list(dir.resolve("logs"))) {
            StringBuilder all = new StringBuilder();
            for (Path f : files.toList()) {
                all.append(Files.readString(f));
            }
            return all.toString();
        }
    }

    @Test
    void replicationNeedsACompleteRemote() throws IOException {
        Path cfg = config("half", primary, null, "  replication: \"on\"\n  remote_hostname: 127.0.0.1\n");
        Result r = run(InputStream.nullInputStream(), "replicate_backup", cfg.toString(), "20261123045500");
        assertEquals(1, r.status());
        assertTrue(r.err().contains("replication needs all of remote_hostname, remote_username, remote_password, remote_storage_unit"), r.err());
    }
}
