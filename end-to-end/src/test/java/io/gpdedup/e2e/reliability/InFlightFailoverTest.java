package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.data.Sha256Sink;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.RunningCall;
import java.io.IOException;
import java.io.InputStream;
import java.io.SequenceInputStream;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Plugin calls in flight when the store holding their unit is killed with -9, through
 * {@code dist/bin/gpbackup_dedup_plugin} and two {@code dist/bin/gpdedup-store} processes on one
 * S3Proxy bucket (the second with {@code --standby}), {@code hostname} listing both: a restore
 * finishes from the standby byte for byte; a backup whose chunks stored before the kill were all
 * in the bucket (they repeat an acknowledged backup) finishes on the standby and restores byte for
 * byte; a backup that had stored new chunks, which the holder kept in its spool, finishes on the
 * standby too, the plugin sending them again from what it retained, and restores byte for byte
 * (retaining nothing, {@code failover_retain_size: 0}, it fails with one line naming them and
 * leaves nothing); with the holder's address alone the backup fails with one line. Moments are byte counts of the streams; the wait from the kill to the call's exit is
 * printed, never asserted.
 */
@Timeout(600)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(WaitingLane.LOCK)
class InFlightFailoverTest {
    private static final int OBJECT_BYTES = 48 << 20;
    /** The part of the second backup that repeats the first; the kill comes before its end. */
    private static final int REPEATED_BYTES = 40 << 20;
    /**
     * Where a backup's holder is killed: past what the plugin holds of a stream before the store's
     * SYNC lets it go (3 shared 4 MiB batches, its own 1 MiB batch, the chunker's buffer: about
     * 16 MiB), so at least 20 MiB of chunks were stored at the holder by then.
     */
    private static final int BACKUP_KILL_AT = 36 << 20;
    /** Where a restore's holder is killed: well before the plugin could have fetched the object's end. */
    private static final int RESTORE_KILL_AT = 8 << 20;
    /** Longer than a failover: lease (6 s) + its renewal period + 1 s + the take (2 s on S3Proxy) + the load, with room for a busy machine. */
    private static final int RECONNECT_SECONDS = 30;

    @TempDir
    Path dir;

    private final Timestamps timestamps = new Timestamps();

    /** The second backup: the first {@link #REPEATED_BYTES} of the first, then new bytes. */
    private static InputStream secondBackup() {
        return new SequenceInputStream(new SeededBytes(71, REPEATED_BYTES), new SeededBytes(72, OBJECT_BYTES - REPEATED_BYTES));
    }

    /** The moment of the kill, for the wait printed once the call exits. */
    private static final class Kill {
        private long at;

        void now(StandbyPair pair) throws InterruptedException {
            pair.killHolder();
            at = System.nanoTime();
        }

        long millisSince() {
            return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - at);
        }
    }

    /** Streams {@code data} into a backup_data call, killing the holder after {@link #BACKUP_KILL_AT} bytes. */
    private static CallResult backupKillingTheHolder(StandbyPair pair, String cfg, String key, InputStream data, Kill kill) throws Exception {
        RunningCall backup = pair.plugin().start("backup_data", cfg, key);
        try {
            new Cues().at(BACKUP_KILL_AT, () -> kill.now(pair)).copy(data, backup.stdin());
        } catch (IOException pluginGaveUp) {
            // It exited before reading all of its stdin: its exit status tells.
        }
        return backup.finish(null);
    }

    @ParameterizedTest(name = "GPDEDUP_AGENT={0}")
    @ValueSource(strings = {"require", "off"})
    void aBackupInFlightWhoseStoredChunksWereUploadedFinishesOnTheStandby(String agent) throws Exception {
        try (StandbyPair pair = StandbyPair.start(dir, agent)) {
            String both = pair.config("both", RECONNECT_SECONDS, pair.holderPort(), pair.standbyPort());
            pair.plugin().run(new SeededBytes(71, OBJECT_BYTES), "backup_data", both, pair.key(0, timestamps.next(), 16384)).assertSucceeded();

            String key = pair.key(0, timestamps.next(), 16385);
            Kill kill = new Kill();
            CallResult b = backupKillingTheHolder(pair, both, key, secondBackup(), kill);
            long waited = kill.millisSince();
            b.assertSucceeded();
            System.out.printf("in-flight backup_data, GPDEDUP_AGENT=%s, lease-seconds %d: kill -9 of the holder -> the call's exit %d ms%n",
                    agent, StandbyPair.LEASE_SECONDS, waited);
            assertEquals(1, pair.pluginLogLines("the last time by one to 127.0.0.1:" + pair.standbyPort()).size(),
                    "the backup's connection was replaced by one to the standby: " + pair.pluginLogLines("lost"));
            assertTrue(pair.standbyLog().contains("storage unit prod: taken over from the store on host"), pair.standbyLog());

            String standbyOnly = pair.config("standby", RECONNECT_SECONDS, pair.standbyPort());
            Cues.Restored r = new Cues().read(pair.plugin().command("restore_data", standbyOnly, key).start());
            assertEquals(0, r.exit(), r.stderr());
            assertEquals(OBJECT_BYTES, r.bytes());
            assertEquals(Sha256Sink.of(secondBackup()), r.sha256());
        }
    }

    @Test
    void aBackupInFlightWhoseNewChunksWereInTheHoldersSpoolFinishesOnTheStandbyFromWhatThePluginRetained() throws Exception {
        try (StandbyPair pair = StandbyPair.start(dir, "off")) {
            String both = pair.config("both", RECONNECT_SECONDS, pair.holderPort(), pair.standbyPort());
            String key = pair.key(0, timestamps.next(), 16386);
            Kill kill = new Kill();
            CallResult b = backupKillingTheHolder(pair, both, key, new SeededBytes(73, OBJECT_BYTES), kill);
            long waited = kill.millisSince();
            b.assertSucceeded();
            System.out.printf("in-flight backup_data of new chunks, lease-seconds %d: kill -9 of the holder -> the call's exit %d ms%n",
                    StandbyPair.LEASE_SECONDS, waited);
            assertEquals(1, pair.pluginLogLines("the last time by one to 127.0.0.1:" + pair.standbyPort()).size(),
                    "the backup's connection was replaced by one to the standby: " + pair.pluginLogLines("lost"));

            String standbyOnly = pair.config("standby", RECONNECT_SECONDS, pair.standbyPort());
            Cues.Restored r = new Cues().read(pair.plugin().command("restore_data", standbyOnly, key).start());
            assertEquals(0, r.exit(), r.stderr());
            assertEquals(OBJECT_BYTES, r.bytes());
            assertEquals(Sha256Sink.of(new SeededBytes(73, OBJECT_BYTES)), r.sha256());
        }
    }

    @Test
    void controlRetainingNothingABackupInFlightWhoseNewChunksWereInTheHoldersSpoolFailsWithOneLine() throws Exception {
        try (StandbyPair pair = StandbyPair.start(dir, "off")) {
            String both = pair.config("both", RECONNECT_SECONDS, "  failover_retain_size: \"0\"\n", pair.holderPort(), pair.standbyPort());
            String key = pair.key(0, timestamps.next(), 16386);
            Kill kill = new Kill();
            CallResult b = backupKillingTheHolder(pair, both, key, new SeededBytes(73, OBJECT_BYTES), kill);
            long waited = kill.millisSince();
            assertNotEquals(0, b.exitCode(), b.toString());
            String line = b.stderr().strip();
            System.out.printf("in-flight backup_data of new chunks, lease-seconds %d: kill -9 of the holder -> the call's exit %d ms: %s%n",
                    StandbyPair.LEASE_SECONDS, waited, line);
            assertEquals(1, line.lines().count(), b.stderr());
            assertTrue(line.contains("127.0.0.1:" + pair.standbyPort() + " no longer holds")
                    && line.contains("stored for this backup before the connection was lost; run the backup again"), line);
            assertFalse(line.contains("Exception") || line.contains("\tat "), line);

            String standbyOnly = pair.config("standby", RECONNECT_SECONDS, pair.standbyPort());
            CallResult restore = pair.plugin().run("restore_data", standbyOnly, key);
            assertNotEquals(0, restore.exitCode(), "nothing of the failed backup is visible: " + restore);
            assertEquals(0, restore.stdoutBytes(), restore.toString());
        }
    }

    @ParameterizedTest(name = "GPDEDUP_AGENT={0}")
    @ValueSource(strings = {"require", "off"})
    void aRestoreInFlightFinishesFromTheStandby(String agent) throws Exception {
        try (StandbyPair pair = StandbyPair.start(dir, agent)) {
            String both = pair.config("both", RECONNECT_SECONDS, pair.holderPort(), pair.standbyPort());
            String key = pair.key(0, timestamps.next(), 16387);
            pair.plugin().run(new SeededBytes(74, OBJECT_BYTES), "backup_data", both, key).assertSucceeded();

            Kill kill = new Kill();
            Cues.Restored r = new Cues().at(RESTORE_KILL_AT, () -> kill.now(pair)).read(pair.plugin().command("restore_data", both, key).start());
            long waited = kill.millisSince();
            assertEquals(0, r.exit(), r.stderr());
            System.out.printf("in-flight restore_data, GPDEDUP_AGENT=%s, lease-seconds %d: kill -9 of the holder -> the call's exit %d ms%n",
                    agent, StandbyPair.LEASE_SECONDS, waited);
            assertEquals(OBJECT_BYTES, r.bytes());
            assertEquals(Sha256Sink.of(new SeededBytes(74, OBJECT_BYTES)), r.sha256());
            assertEquals(1, pair.pluginLogLines("the last time by one to 127.0.0.1:" + pair.standbyPort()).size(),
                    "the restore's connection was replaced by one to the standby: " + pair.pluginLogLines("lost"));
        }
    }

    @Test
    void controlWithTheHoldersAddressAloneTheSameBackupFailsWithOneLine() throws Exception {
        try (StandbyPair pair = StandbyPair.start(dir, "off")) {
            String holderOnly = pair.config("holder", RECONNECT_SECONDS, pair.holderPort());
            pair.plugin().run(new SeededBytes(71, OBJECT_BYTES), "backup_data", holderOnly, pair.key(0, timestamps.next(), 16384))
                    .assertSucceeded();

            String key = pair.key(0, timestamps.next(), 16385);
            Kill kill = new Kill();
            CallResult b = backupKillingTheHolder(pair, holderOnly, key, secondBackup(), kill);
            long waited = kill.millisSince();
            assertNotEquals(0, b.exitCode(), b.toString());
            String line = b.stderr().strip();
            System.out.printf("in-flight backup_data, the holder's address alone: kill -9 of the holder -> the call's exit %d ms: %s%n", waited, line);
            assertEquals(1, line.lines().count(), b.stderr());
            assertTrue(line.contains("no new connection within " + RECONNECT_SECONDS + " s"), line);
            assertFalse(line.contains("Exception") || line.contains("\tat "), line);

            String standbyOnly = pair.config("standby", RECONNECT_SECONDS, pair.standbyPort());
            CallResult restore = pair.plugin().run("restore_data", standbyOnly, key);
            assertNotEquals(0, restore.exitCode(), "nothing of the failed backup is visible: " + restore);
        }
    }
}
