package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.data.Sha256Sink;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.RunningCall;
import io.gpdedup.tooling.TcpRelay;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
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
 * A store that dies mid-call: kill -9 of {@code dist/bin/gpdedup-store} a third of the way into a
 * 48 MiB backup and into its restore (what is left after the cue is more than a restore fetches
 * ahead, so the restore needs the store again), started again on the same port and data 3 s later; and a
 * fault-injecting relay in front of the store that cuts every connection for 3 s. Both calls must
 * complete byte for byte: the backup sends again what the killed store had not made durable, the
 * restore goes on after its last verified byte. A store that stays down fails the call after the
 * plugin's {@code reconnect_timeout_seconds} with one line, having written no unverified byte and
 * made nothing visible.
 */
@Timeout(1200)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(WaitingLane.LOCK)
class StoreRestartTest {
    private static final int OBJECT_BYTES = 48 << 20;
    private static final long DOWN_SECONDS = 3;

    @TempDir
    Path dir;

    private final Timestamps timestamps = new Timestamps();

    @ParameterizedTest(name = "GPDEDUP_AGENT={0}")
    @ValueSource(strings = {"require", "off"})
    void aBackupAndItsRestoreCompleteAcrossAKillNineAndARestartOfTheStore(String agent) throws Exception {
        try (StoreAndPlugin host = StoreAndPlugin.start(dir, "", agent)) {
            String cfg = host.config("plugin", host.storePort(), "");
            String key = host.key(0, timestamps.next(), 16384);
            Outage backupOutage = new Outage(host);
            long started = System.nanoTime();
            RunningCall backup = host.plugin().start("backup_data", cfg, key);
            new Cues().at(OBJECT_BYTES / 3, backupOutage::begin).copy(new SeededBytes(51, OBJECT_BYTES), backup.stdin());
            CallResult b = backup.finish(null);
            backupOutage.awaitEnd();
            b.assertSucceeded();
            double backupSeconds = (System.nanoTime() - started) / 1e9;

            Outage restoreOutage = new Outage(host);
            started = System.nanoTime();
            Cues.Restored r = new Cues().at(OBJECT_BYTES / 3, restoreOutage::begin).read(host.plugin().command("restore_data", cfg, key).start());
            restoreOutage.awaitEnd();
            assertEquals(0, r.exit(), r.stderr());
            assertEquals(OBJECT_BYTES, r.bytes());
            assertEquals(Sha256Sink.of(new SeededBytes(51, OBJECT_BYTES)), r.sha256());
            report("kill -9 of the store, GPDEDUP_AGENT=" + agent, backupSeconds, (System.nanoTime() - started) / 1e9, host);
        }
    }

    @Test
    void aBackupAndItsRestoreCompleteAcrossANetworkCut() throws Exception {
        try (StoreAndPlugin host = StoreAndPlugin.start(dir, "", "require");
             TcpRelay relay = TcpRelay.start(new InetSocketAddress("127.0.0.1", host.storePort()))) {
            String cfg = host.config("relayed", relay.port(), "");
            String key = host.key(0, timestamps.next(), 16384);
            long started = System.nanoTime();
            RunningCall backup = host.plugin().start("backup_data", cfg, key);
            new Cues().at(OBJECT_BYTES / 3, () -> relay.cut(Duration.ofSeconds(DOWN_SECONDS))).copy(new SeededBytes(52, OBJECT_BYTES), backup.stdin());
            backup.finish(null).assertSucceeded();
            double backupSeconds = (System.nanoTime() - started) / 1e9;
            int cutInBackup = relay.cutConnections();
            assertTrue(cutInBackup > 0, "the backup's connection went through the relay and was cut");

            started = System.nanoTime();
            Cues.Restored r = new Cues().at(OBJECT_BYTES / 3, () -> relay.cut(Duration.ofSeconds(DOWN_SECONDS)))
                    .read(host.plugin().command("restore_data", cfg, key).start());
            assertEquals(0, r.exit(), r.stderr());
            assertEquals(OBJECT_BYTES, r.bytes());
            assertEquals(Sha256Sink.of(new SeededBytes(52, OBJECT_BYTES)), r.sha256());
            assertTrue(relay.cutConnections() > cutInBackup, "the restore's connection was cut");
            report("network cut by the relay", backupSeconds, (System.nanoTime() - started) / 1e9, host);
        }
    }

    @Test
    void aStoreThatStaysDownFailsTheCallsCleanlyAfterTheReconnectTimeout() throws Exception {
        int bytes = 48 << 20;
        try (StoreAndPlugin host = StoreAndPlugin.start(dir, "", "require")) {
            String cfg = host.config("plugin", host.storePort(), "  reconnect_timeout_seconds: \"4\"\n");
            Timestamp t = timestamps.next();
            String restored = host.key(0, t, 16384);
            host.plugin().run(new SeededBytes(53, bytes), "backup_data", cfg, restored).assertSucceeded();

            // A restore whose store dies a sixth of the way in: only verified bytes, a prefix of the object.
            Cues.Restored r = new Cues().at(bytes / 6, host::killStore).read(host.plugin().command("restore_data", cfg, restored).start());
            assertNotEquals(0, r.exit());
            assertOneLineNamingTheTimeout(r.stderr());
            assertTrue(r.bytes() < bytes, r.bytes() + " bytes written");
            InputStream prefix = new SeededBytes(53, r.bytes());
            assertEquals(Sha256Sink.of(prefix), r.sha256(), "what the restore wrote is the start of the object");

            host.restartStore();
            String lost = host.key(1, t, 16384);
            RunningCall backup = host.plugin().start("backup_data", cfg, lost);
            try {
                new Cues().at(bytes / 3, host::killStore).copy(new SeededBytes(54, bytes), backup.stdin());
            } catch (IOException pluginGaveUp) {
                // It exited before reading all of its stdin: its exit status tells.
            }
            CallResult b = backup.finish(null);
            assertNotEquals(0, b.exitCode(), b.toString());
            assertOneLineNamingTheTimeout(b.stderr());
            assertEquals(0, b.stdoutBytes());
            System.out.println("a store that stays down, reconnect_timeout_seconds 4: the restore wrote " + r.bytes() + " verified bytes of "
                    + bytes + " and failed with: " + r.stderr().strip() + "; the backup failed with: " + b.stderr().strip());

            host.restartStore();
            host.plugin().run("restore_data", cfg, lost).assertFailed();
            CallResult again = host.plugin().run("restore_data", cfg, restored).assertSucceeded();
            assertEquals(Sha256Sink.of(new SeededBytes(53, bytes)), Sha256Sink.of(again.stdout()));
        }
    }

    private static void report(String fault, double backupSeconds, double restoreSeconds, StoreAndPlugin host) throws IOException {
        System.out.printf("%s (%d s): backup of %d MiB %.1f s, restore %.1f s, both byte for byte; plugin log: %s%n", fault, DOWN_SECONDS,
                OBJECT_BYTES >> 20, backupSeconds, restoreSeconds, host.pluginLogLines("was lost"));
    }

    private static void assertOneLineNamingTheTimeout(String stderr) {
        assertEquals(1, stderr.lines().count(), () -> "one line on stderr: " + stderr);
        assertTrue(stderr.contains("no new connection within"), stderr);
        assertTrue(!stderr.contains("Exception") && !stderr.contains("\tat "), stderr);
    }

    /** kill -9 of the store, and its start on the same port and data {@value #DOWN_SECONDS} s later, while the call goes on. */
    private static final class Outage {
        private final StoreAndPlugin host;
        private CompletableFuture<Void> restarted;

        Outage(StoreAndPlugin host) {
            this.host = host;
        }

        void begin() throws InterruptedException {
            host.killStore();
            restarted = CompletableFuture.runAsync(() -> {
                try {
                    TimeUnit.SECONDS.sleep(DOWN_SECONDS);
                    host.restartStore();
                } catch (IOException | InterruptedException e) {
                    throw new IllegalStateException("restarting the store failed", e);
                }
            });
        }

        void awaitEnd() throws Exception {
            assertTrue(restarted != null, "the store was never killed: the stream ended before the cue");
            restarted.get(120, TimeUnit.SECONDS);
        }
    }
}
