package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.data.Sha256Sink;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.layout.BackupDirectory;
import io.gpdedup.e2e.layout.ConfigFile;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.e2e.shell.PluginShell;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A call run in-process (no host agent) holds no more of a restore in memory than a host agent's
 * call would, whatever the host's RAM: the streams' budget is half the JVM's max heap, and
 * build-dist gives every plugin JVM the agent's {@code -Xmx1g}. With the JVM's default max heap, a
 * quarter of the RAM, a restore whose reader pauses (as gprestore's do between tables) had the
 * whole object fetched from the store and held before its reader went on.
 */
@Timeout(300)
class InProcessFetchAheadTest {
    /** Incompressible, so the store sends every byte it is asked for. */
    private static final int OBJECT_BYTES = 96 << 20;
    /**
     * A stream's most in flight under {@code -Xmx1g} is its own 1 MiB batch and three shared 4 MiB
     * ones (docs/dedup-plugin.md, "Memory"); the rest of this bound is the socket's buffers.
     */
    private static final long FETCH_AHEAD_BOUND = 32L << 20;
    private static final Pattern SENT = Pattern.compile("(?m)^gpdedup_store_network_sent_bytes_total(?:\\{[^}]*\\})? ([0-9.eE+]+)$");

    @TempDir
    Path dir;

    @Test
    void aPausedRestoreRunInProcessFetchesAheadNoMoreThanAnAgentsCall() throws Exception {
        try (StoreProcess store = StoreProcess.start(dir.resolve("store-home"), List.of("--port", "0", "--metrics-port", "0"))) {
            Map<String, String> options = store.demoOptions("cluster1");
            options.put("log_directory", dir.resolve("logs").toString());
            Path executable = Dist.executable(DedupFixture.EXECUTABLE);
            String cfg = Files.writeString(dir.resolve("dedup.yaml"), ConfigFile.render(executable.toString(), options)).toString();
            PluginShell plugin = new PluginShell(executable, Files.createDirectories(dir.resolve("cwd")), Files.createDirectories(dir.resolve("home")),
                    Map.of("GPDEDUP_AGENT", "off"));
            String key = BackupDirectory.of(dir, 0, new Timestamps().next()).dataKey(16384);
            plugin.run(new SeededBytes(7, OBJECT_BYTES), "backup_data", cfg, key).assertSucceeded();

            double before = sent(store);
            Process restore = plugin.command("restore_data", cfg, key).start();
            restore.getOutputStream().close();
            CompletableFuture<String> stderr = CompletableFuture.supplyAsync(() -> text(restore.getErrorStream()));
            try {
                InputStream out = restore.getInputStream();
                // The reader does not read: the restore fills the pipe, then fetches ahead what its budget allows.
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (out.available() < 32 << 10) {
                    assertTrue(restore.isAlive() && System.nanoTime() < deadline, () -> "restore_data did not start writing: " + stderr.getNow(""));
                    Thread.sleep(20);
                }
                double fetched = settled(store, deadline) - before;
                System.out.printf("an in-process restore of %d MiB whose reader paused: the store sent %.1f MiB%n", OBJECT_BYTES >> 20, fetched / (1 << 20));
                assertTrue(fetched < FETCH_AHEAD_BOUND, "a paused in-process restore had " + (long) fetched + " bytes of " + OBJECT_BYTES + " fetched");

                String digest = Sha256Sink.of(out);
                assertTrue(restore.waitFor(120, TimeUnit.SECONDS), "restore_data did not exit");
                assertEquals(0, restore.exitValue(), () -> "restore_data failed: " + stderr.join());
                assertEquals(Sha256Sink.of(new SeededBytes(7, OBJECT_BYTES)), digest, "the restore after its reader went on");
            } finally {
                restore.destroyForcibly();
            }
        }
    }

    /** The store's sent-bytes counter once it has not moved for two seconds. */
    private static double settled(StoreProcess store, long deadline) throws Exception {
        double last = sent(store);
        long stillSince = System.nanoTime();
        while (System.nanoTime() - stillSince < TimeUnit.SECONDS.toNanos(2)) {
            assertTrue(System.nanoTime() < deadline, "the store kept sending to a restore whose reader paused");
            Thread.sleep(250);
            double now = sent(store);
            if (now != last) {
                last = now;
                stillSince = System.nanoTime();
            }
        }
        return last;
    }

    private static double sent(StoreProcess store) throws Exception {
        Matcher m = SENT.matcher(store.metrics());
        assertTrue(m.find(), "no sent-bytes counter in the store's metrics");
        return Double.parseDouble(m.group(1));
    }

    private static String text(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            return "(stderr unreadable: " + e.getMessage() + ")";
        }
    }
}
