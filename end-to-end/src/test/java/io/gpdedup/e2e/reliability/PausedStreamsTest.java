package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.RepeatedBlock;
import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.data.Sha256Sink;
import io.gpdedup.e2e.fixture.AgentHost;
import io.gpdedup.e2e.layout.Timestamp;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.RunningCall;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Streams that pause, as gpbackup_helper's do in single-data-file mode: between tables a segment's
 * stream sits idle, and a restore reader stops reading until the next table's COPY has started on
 * every segment. All segments of a host share one host agent, so a stream paused by its caller
 * must never stop another from moving: here seven of eight pause while the eighth must finish, then
 * the seven go on and everything restores byte for byte. Restores both through the agent writing
 * the callers' pipes itself and through the launcher's relay (which blocks differently: on the
 * socket); the rest with direct stdio, what gpbackup_helper's pipes get.
 */
@Timeout(900)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(WaitingLane.LOCK)
class PausedStreamsTest {
    /** Seven paused restores of this much fetched ahead more than the old 128 MiB window held. */
    private static final int OBJECT_BYTES = 24 << 20;
    private static final int STREAMS = 8;
    /** Long enough for a loaded 2-core machine; the calls never take it unless they hang. */
    private static final long FINISH_SECONDS = 240;

    @TempDir
    Path dir;

    private final Timestamps timestamps = new Timestamps();

    @ParameterizedTest(name = "GPDEDUP_AGENT_DIRECT={0}")
    @ValueSource(strings = {"on", "off"})
    void sevenRestoresWhoseReadersPauseDoNotStopTheEighth(String direct) throws Exception {
        try (AgentHost host = AgentHost.start(dir, io.gpdedup.e2e.fixture.Dist.executable("gpbackup_dedup_plugin"),
                Map.of("GPDEDUP_AGENT_DIRECT", direct))) {
            String key = host.key(0, timestamps.next(), 16384);
            host.plugin().run(new SeededBytes(1, OBJECT_BYTES), "backup_data", host.cfg(), key).assertSucceeded();
            String expected = Sha256Sink.of(new SeededBytes(1, OBJECT_BYTES));

            List<PausedReader> paused = new ArrayList<>();
            try {
                for (int i = 0; i < STREAMS - 1; i++) {
                    paused.add(PausedReader.start(host, key));
                }
                for (PausedReader r : paused) {
                    r.awaitPipeFull();
                }
                // Give the paused restores time to fetch ahead all they may.
                Thread.sleep(3000);
                Sha256Sink sink = new Sha256Sink();
                long started = System.nanoTime();
                CompletableFuture<CallResult> eighth = CompletableFuture.supplyAsync(
                        () -> host.plugin().stream(null, sink, "restore_data", host.cfg(), key));
                CallResult r = finishes(eighth, "the eighth restore, while seven readers pause");
                System.out.printf("GPDEDUP_AGENT_DIRECT=%s: the eighth %d MiB restore took %.2f s while seven readers paused%n", direct,
                        OBJECT_BYTES >> 20, (System.nanoTime() - started) / 1e9);
                r.assertSucceeded();
                assertEquals(expected, sink.hex(), "the eighth restore");
                for (PausedReader p : paused) {
                    assertTrue(p.isAlive(), "a paused restore ended before its reader went on");
                }
                for (PausedReader p : paused) {
                    p.resume();
                }
                for (PausedReader p : paused) {
                    assertEquals(expected, p.finish(), "a paused restore after its reader went on");
                }
            } finally {
                paused.forEach(PausedReader::kill);
            }
        }
    }

    @ParameterizedTest(name = "GPDEDUP_AGENT_DIRECT={0}")
    @ValueSource(strings = {"on"})
    void sevenBackupsWhoseWritersPauseDoNotStopTheEighth(String direct) throws Exception {
        int bytes = 12 << 20;
        try (AgentHost host = AgentHost.start(dir, io.gpdedup.e2e.fixture.Dist.executable("gpbackup_dedup_plugin"),
                Map.of("GPDEDUP_AGENT_DIRECT", direct))) {
            Timestamp t = timestamps.next();
            List<RunningCall> paused = new ArrayList<>();
            List<SeededBytes> rest = new ArrayList<>();
            try {
                for (int i = 0; i < STREAMS - 1; i++) {
                    RunningCall c = host.plugin().start("backup_data", host.cfg(), host.key(i % 2, t, 16384 + i));
                    SeededBytes data = new SeededBytes(100 + i, bytes);
                    // Half the stream, then the writer pauses with stdin open, as between two tables.
                    byte[] half = data.readNBytes(bytes / 2);
                    OutputStream in = c.stdin();
                    in.write(half);
                    in.flush();
                    paused.add(c);
                    rest.add(data);
                }
                Thread.sleep(2000);
                long started = System.nanoTime();
                CompletableFuture<CallResult> eighth = CompletableFuture.supplyAsync(() -> host.plugin()
                        .run(new SeededBytes(107, bytes), "backup_data", host.cfg(), host.key(1, t, 16384 + 7)));
                finishes(eighth, "the eighth backup, while seven writers pause").assertSucceeded();
                System.out.printf("GPDEDUP_AGENT_DIRECT=%s: the eighth %d MiB backup took %.2f s while seven writers paused%n", direct, bytes >> 20,
                        (System.nanoTime() - started) / 1e9);
                for (int i = 0; i < paused.size(); i++) {
                    assertTrue(paused.get(i).isAlive(), "a paused backup ended before its writer went on");
                }
                for (int i = 0; i < paused.size(); i++) {
                    paused.get(i).finish(rest.get(i)).assertSucceeded();
                }
            } finally {
                paused.forEach(RunningCall::kill);
            }
            for (int i = 0; i < STREAMS; i++) {
                Sha256Sink sink = new Sha256Sink();
                host.plugin().stream(null, sink, "restore_data", host.cfg(), host.key(i % 2, t, 16384 + i)).assertSucceeded();
                assertEquals(Sha256Sink.of(new SeededBytes(100 + i, bytes)), sink.hex(), "backup " + i);
            }
        }
    }

    /**
     * {@code restore_data K1 | backup_data K2} through one agent: the restore fills the pipe and
     * blocks with batches fetched ahead, and the backup reading that pipe must still get memory for
     * its batches, or neither ever ends. 160 MiB, more than the old shared 128 MiB window, of a
     * repeated 1 MiB block, so the store keeps about 1 MiB.
     */
    @ParameterizedTest(name = "GPDEDUP_AGENT_DIRECT={0}")
    @ValueSource(strings = {"on"})
    void aRestorePipedIntoABackupThroughTheSameAgentFinishes(String direct) throws Exception {
        long bytes = 160L << 20;
        try (AgentHost host = AgentHost.start(dir, io.gpdedup.e2e.fixture.Dist.executable("gpbackup_dedup_plugin"),
                Map.of("GPDEDUP_AGENT_DIRECT", direct))) {
            Timestamp t = timestamps.next();
            String from = host.key(0, t, 16384);
            String to = host.key(1, t, 16384);
            host.plugin().run(new RepeatedBlock(SeededBytes.array(5, 1 << 20), bytes), "backup_data", host.cfg(), from).assertSucceeded();
            Process pipeline = host.plugin().command("restore_data", host.cfg(), from, "|", host.plugin().executable().toString(),
                    "backup_data", host.cfg(), to).start();
            pipeline.getOutputStream().close();
            long started = System.nanoTime();
            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> text(pipeline.getErrorStream()));
            if (!pipeline.waitFor(FINISH_SECONDS, TimeUnit.SECONDS)) {
                pipeline.destroyForcibly();
                throw new AssertionError("restore_data | backup_data through one agent did not finish within " + FINISH_SECONDS + " s");
            }
            assertEquals(0, pipeline.exitValue(), () -> "restore_data | backup_data: " + err.join());
            System.out.printf("GPDEDUP_AGENT_DIRECT=%s: restore_data | backup_data of %d MiB through one agent took %.2f s%n", direct, bytes >> 20,
                    (System.nanoTime() - started) / 1e9);
            assertEquals("", err.join(), "stderr of restore_data | backup_data");
            Sha256Sink sink = new Sha256Sink();
            host.plugin().stream(null, sink, "restore_data", host.cfg(), to).assertSucceeded();
            assertEquals(bytes, sink.count());
            assertEquals(Sha256Sink.of(new RepeatedBlock(SeededBytes.array(5, 1 << 20), bytes)), sink.hex(), "the copy");
        }
    }

    private static String text(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static CallResult finishes(CompletableFuture<CallResult> call, String what) throws Exception {
        try {
            return call.get(FINISH_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(what + " did not finish within " + FINISH_SECONDS + " s: stuck behind the paused streams", e);
        }
    }

    /** A restore_data whose reader reads nothing until told: its stdout pipe fills, the plugin blocks on it. */
    private static final class PausedReader {
        private final Process process;
        private final CompletableFuture<String> stderr;

        private PausedReader(Process process) {
            this.process = process;
            this.stderr = CompletableFuture.supplyAsync(() -> text(process.getErrorStream()));
        }

        static PausedReader start(AgentHost host, String key) throws IOException {
            Process p = host.plugin().command("restore_data", host.cfg(), key).start();
            p.getOutputStream().close();
            return new PausedReader(p);
        }

        /** Waits until the pipe holds 32 KiB or more: the restore is running and about to block. */
        void awaitPipeFull() throws IOException, InterruptedException {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(FINISH_SECONDS);
            while (process.getInputStream().available() < 32 << 10) {
                if (!process.isAlive() || System.nanoTime() > deadline) {
                    throw new AssertionError("restore_data did not start writing: " + stderr.getNow("(running)"));
                }
                Thread.sleep(20);
            }
        }

        boolean isAlive() {
            return process.isAlive();
        }

        private CompletableFuture<String> digest;

        void resume() {
            digest = CompletableFuture.supplyAsync(() -> Sha256Sink.of(process.getInputStream()));
        }

        String finish() throws Exception {
            String hex = digest.get(FINISH_SECONDS, TimeUnit.SECONDS);
            assertTrue(process.waitFor(FINISH_SECONDS, TimeUnit.SECONDS), "restore_data did not exit");
            assertEquals(0, process.exitValue(), () -> "restore_data failed: " + stderr.join());
            assertEquals("", stderr.get(FINISH_SECONDS, TimeUnit.SECONDS), "stderr of a successful restore");
            return hex;
        }

        void kill() {
            process.destroyForcibly();
        }
    }
}
