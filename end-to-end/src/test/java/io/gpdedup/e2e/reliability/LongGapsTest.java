package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.data.Sha256Sink;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.RunningCall;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Gaps longer than the store's idle timeout in the middle of a call, as gpbackup_helper makes them
 * in single-data-file mode: a backup's stdin pauses between tables, a restore's reader stops until
 * the next table's COPY. The store closes connections silent for {@code idle-timeout-seconds} (2 s
 * here); each call pauses 3 s (one and a half timeouts: a connection left silent is closed, and a
 * longer gap would show nothing more) mid-stream and must still finish, byte for byte, through the
 * real executables, with and without the host agent.
 */
@Timeout(600)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(WaitingLane.LOCK)
class LongGapsTest {
    private static final int IDLE_TIMEOUT_SECONDS = 2;
    private static final long GAP_SECONDS = 3 * IDLE_TIMEOUT_SECONDS / 2;
    /** More than a restore fetches ahead, so that it needs the store again after its reader's pause. */
    private static final int OBJECT_BYTES = 40 << 20;

    @TempDir
    Path dir;

    private final Timestamps timestamps = new Timestamps();

    @ParameterizedTest(name = "GPDEDUP_AGENT={0}")
    @ValueSource(strings = {"require", "off"})
    void backupAndRestoresWithGapsLongerThanTheStoresIdleTimeout(String agent) throws Exception {
        try (StoreAndPlugin host = StoreAndPlugin.start(dir, "idle-timeout-seconds: " + IDLE_TIMEOUT_SECONDS + "\n", agent)) {
            String cfg = host.config("plugin", host.storePort(), "");
            Timestamp t = timestamps.next();
            String key = host.key(0, t, 16384);
            String expected = Sha256Sink.of(new SeededBytes(41, OBJECT_BYTES));

            // Two tables' worth, a gap, two more, a gap, the rest: the stream stays open throughout.
            long started = System.nanoTime();
            RunningCall backup = host.plugin().start("backup_data", cfg, key);
            new Cues().at(OBJECT_BYTES / 4, Cues.pause(GAP_SECONDS)).at(OBJECT_BYTES / 2, Cues.pause(GAP_SECONDS))
                    .copy(new SeededBytes(41, OBJECT_BYTES), backup.stdin());
            backup.finish(null).assertSucceeded();
            double backupSeconds = (System.nanoTime() - started) / 1e9;

            started = System.nanoTime();
            Cues.Restored full = new Cues().at(1 << 20, Cues.pause(GAP_SECONDS))
                    .read(host.plugin().command("restore_data", cfg, key).start());
            assertEquals(0, full.exit(), full.stderr());
            assertEquals(OBJECT_BYTES, full.bytes());
            assertEquals(expected, full.sha256(), "restore_data with a pause of its reader");
            double restoreSeconds = (System.nanoTime() - started) / 1e9;

            // Three tables of the file, the first small, as gprestore asks for them.
            long[][] ranges = {{1000, 2000}, {4 << 20, 20 << 20}, {30 << 20, OBJECT_BYTES}};
            Path offsets = Files.writeString(dir.resolve("offsets"), "3 " + String.join(" ",
                    Arrays.stream(ranges).map(r -> r[0] + " " + r[1]).toList()) + "\n", StandardCharsets.US_ASCII);
            Cues.Restored subset = new Cues().at(1000 + (1 << 20), Cues.pause(GAP_SECONDS))
                    .read(host.plugin().command("restore_data_subset", cfg, key, offsets.toString()).start());
            assertEquals(0, subset.exit(), subset.stderr());
            byte[] all = SeededBytes.array(41, OBJECT_BYTES);
            ByteArrayOutputStream wanted = new ByteArrayOutputStream();
            for (long[] r : ranges) {
                wanted.write(all, (int) r[0], (int) (r[1] - r[0]));
            }
            assertEquals(wanted.size(), subset.bytes());
            assertEquals(Sha256Sink.of(wanted.toByteArray()), subset.sha256(), "restore_data_subset with a pause of its reader");

            // And a second backup that pauses right at its start, before its first batch.
            String second = host.key(1, t, 16384);
            RunningCall late = host.plugin().start("backup_data", cfg, second);
            new Cues().at(0, Cues.pause(GAP_SECONDS)).copy(new ByteArrayInputStream(all, 0, 3 << 20), late.stdin());
            late.finish(null).assertSucceeded();
            CallResult back = host.plugin().run("restore_data", cfg, second).assertSucceeded();
            assertEquals(Sha256Sink.of(Arrays.copyOf(all, 3 << 20)), Sha256Sink.of(back.stdout()));
            System.out.printf("GPDEDUP_AGENT=%s, idle timeout %d s: backup_data of %d MiB with two %d s gaps %.1f s, restore_data with"
                    + " one gap %.1f s, restore_data_subset and a backup paused before its first byte: all byte for byte; connections"
                    + " replaced: %s%n", agent, IDLE_TIMEOUT_SECONDS, OBJECT_BYTES >> 20, GAP_SECONDS, backupSeconds, restoreSeconds,
                    host.pluginLogLines("was lost"));
        }
    }
}
