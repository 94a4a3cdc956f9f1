package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.store.auth.PasswordHash;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestOutputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * One unit's user can neither stall nor exhaust a real {@code dist/bin/gpdedup-store} for the
 * others: a raw-protocol client of unit {@code other} that asks and never reads, or that opens
 * leases as fast as it can, while {@code dist/bin/gpbackup_dedup_plugin} backs up and restores
 * into unit {@code prod}. The times it prints are the figures of docs/reliability.md; what it
 * asserts is only that the other unit's work completes, byte for byte.
 */
@Timeout(600)
class UnitIsolationTest {
    private static final String PASSWORD = "isolation-test-password";
    private static final String HOSTILE_UNIT = "other";
    private static final String HOSTILE_USER = "mallory";
    private static final String HOSTILE_PASSWORD = "mallory-password";
    private static final int BACKUP_BYTES = 100_000_000;
    private static final String KEY = "/data/gpseg0/backups/20261128/20261128120000/gpbackup_0_20261128120000_";

    @TempDir
    Path dir;

    @Test
    void aClientThatAsksAndNeverReadsDelaysNoOtherUnit() throws Exception {
        Path home = dir.resolve("store-home");
        writeConfig(home, "engine-threads: 2\n");
        try (StoreProcess store = StoreProcess.start(home)) {
            PluginShell plugin = plugin();
            String cfg = DedupFixture.writeConfig(dir.resolve("plugin.yaml"), store.port(), PASSWORD, dir.resolve("logs"), "").toString();
            byte[] first = SeededBytes.array(31, BACKUP_BYTES);
            plugin.run(new ByteArrayInputStream(first), "backup_data", cfg, KEY + "1").assertSucceeded();
            long stalledLogin;
            long stalledBackup;
            try (RawUnitClient hostile = RawUnitClient.login(store.port(), HOSTILE_UNIT, HOSTILE_USER, HOSTILE_PASSWORD)) {
                Fingerprint fp = hostile.putOneMiB(5);
                for (int i = 0; i < 8; i++) {
                    hostile.send(Frame.of(100 + i, new Request.GetChunks(Collections.nCopies(17, fp))));
                }
                hostile.flush();
                // Never read from here on, until the other unit's backup is done.
                stalledLogin = login(store.port());
                byte[] second = SeededBytes.array(32, BACKUP_BYTES);
                long t0 = System.nanoTime();
                plugin.run(new ByteArrayInputStream(second), "backup_data", cfg, KEY + "2").assertSucceeded();
                stalledBackup = System.nanoTime() - t0;
                assertArrayEquals(sha256(second), restored(plugin, cfg, KEY + "2"), "the backup made while the other unit's client never read");
                assertArrayEquals(sha256(first), restored(plugin, cfg, KEY + "1"));
                // Control: the eight replies were there all along, whole, for a client that reads.
                int chunks = 0;
                for (int replies = 0; replies < 8;) {
                    Frame f = hostile.read();
                    chunks += ((Reply.ChunksPart) f.message()).chunks().size();
                    replies += f.more() ? 0 : 1;
                }
                assertEquals(8 * 17, chunks);
            }
            // The same without it, for the figures.
            long quietLogin = login(store.port());
            byte[] third = SeededBytes.array(33, BACKUP_BYTES);
            long t0 = System.nanoTime();
            plugin.run(new ByteArrayInputStream(third), "backup_data", cfg, KEY + "3").assertSucceeded();
            long quietBackup = System.nanoTime() - t0;
            System.out.printf("engine-threads 2; a client of another unit with 8 GET_CHUNKS of 17 x 1 MiB unread: login %.3f s (%.3f s"
                    + " without it), backup of %d bytes %.2f s (%.2f s without it)%n", stalledLogin / 1e9, quietLogin / 1e9, BACKUP_BYTES,
                    stalledBackup / 1e9, quietBackup / 1e9);
        } finally {
            HostAgents.kill(dir.resolve("agent"));
        }
    }

    @Test
    void aFloodOfLeasesFromOneUnitLeavesTheOthersTheirBackups() throws Exception {
        Path home = dir.resolve("store-home");
        writeConfig(home, "");
        try (StoreProcess store = StoreProcess.startWithJavaOptions(home, "-Xmx256m")) {
            List<RawUnitClient> flood = new ArrayList<>();
            List<String> refusals = new ArrayList<>();
            int pairs = 0;
            long t0 = System.nanoTime();
            try {
                // As many connections as it takes to pass max-leases-per-unit (16,384) with max-leases-per-connection (1,024) each.
                for (int i = 0; i < 20; i++) {
                    RawUnitClient c = RawUnitClient.login(store.port(), HOSTILE_UNIT, HOSTILE_USER, HOSTILE_PASSWORD);
                    flood.add(c);
                    List<String> refused = c.beginAndAppend(1_100);
                    pairs += 1_100 - refused.size();
                    refusals.addAll(refused);
                }
                long flooded = System.nanoTime() - t0;
                long rss = residentKiB(store.pid());
                assertTrue(refusals.stream().anyMatch(m -> m.contains("max-leases-per-connection")), "refused per connection");
                String perUnit = refusals.stream().filter(m -> m.contains("max-leases-per-unit")).findFirst().orElseThrow(
                        () -> new AssertionError("no BEGIN_BACKUP refused per unit: " + refusals.size() + " refusals"));
                assertEquals(16_384, pairs, "leases granted with a ref appended");
                PluginShell plugin = plugin();
                String cfg = DedupFixture.writeConfig(dir.resolve("plugin.yaml"), store.port(), PASSWORD, dir.resolve("logs"), "").toString();
                byte[] data = SeededBytes.array(34, 20_000_000);
                t0 = System.nanoTime();
                plugin.run(new ByteArrayInputStream(data), "backup_data", cfg, KEY + "1").assertSucceeded();
                long backup = System.nanoTime() - t0;
                assertArrayEquals(sha256(data), restored(plugin, cfg, KEY + "1"), "another unit backs up while the flood's leases are open");
                String log = Files.readString(home.resolve("store.err"));
                assertTrue(log.contains("BEGIN_BACKUP of user '" + HOSTILE_USER + "' refused"), "refusals are logged");
                System.out.printf("-Xmx256m: %d BEGIN_BACKUP + APPEND_RECIPE pairs held open in %.2f s from %d connections, %d refused"
                        + " (\"%s\"), store RSS %,d KiB; then a backup of %d bytes of another unit took %.2f s%n", pairs, flooded / 1e9,
                        flood.size(), refusals.size(), perUnit, rss, data.length, backup / 1e9);
            } finally {
                for (RawUnitClient c : flood) {
                    c.close();
                }
            }
        } finally {
            HostAgents.kill(dir.resolve("agent"));
        }
    }

    /** The store's config: {@code settings} lines, unit prod for the plugin, unit other for the hostile client. */
    private static void writeConfig(Path home, String settings) throws IOException {
        Files.createDirectories(home.resolve(".gpdedup"));
        Files.writeString(home.resolve(".gpdedup").resolve("store.yaml"), "data-dir: data\n" + settings + "units:\n"
                + "  " + StoreProcess.UNIT + ":\n    users:\n      " + StoreProcess.USER + ": " + hash(PASSWORD) + "\n"
                + "  " + HOSTILE_UNIT + ":\n    users:\n      " + HOSTILE_USER + ": " + hash(HOSTILE_PASSWORD) + "\n");
    }

    private static String hash(String password) {
        return PasswordHash.create(password.toCharArray(), 1_000).encoded();
    }

    private PluginShell plugin() throws IOException {
        Path agentDir = Files.createDirectories(dir.resolve("agent"));
        return new PluginShell(Dist.executable(DedupFixture.EXECUTABLE), Files.createDirectories(dir.resolve("cwd")),
                Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
    }

    /** How long a login (HELLO, AUTH) of unit prod's user takes, in nanoseconds. */
    private static long login(int port) {
        long t0 = System.nanoTime();
        try (StoreClient c = StoreClient.connect(ClientSettings.of("127.0.0.1", port, StoreProcess.UNIT, StoreProcess.USER, PASSWORD))) {
            return System.nanoTime() - t0;
        }
    }

    private static byte[] restored(PluginShell plugin, String cfg, String key) throws Exception {
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        try (OutputStream out = new DigestOutputStream(OutputStream.nullOutputStream(), md)) {
            plugin.stream(null, out, "restore_data", cfg, key).assertSucceeded();
        }
        return md.digest();
    }

    private static long residentKiB(long pid) throws IOException {
        return Files.readAllLines(Path.of("/proc/" + pid + "/status")).stream().filter(l -> l.startsWith("VmRSS:"))
                .mapToLong(l -> Long.parseLong(l.replaceAll("[^0-9]", ""))).findFirst().orElse(-1);
    }

    private static byte[] sha256(byte[] data) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(data);
    }
}
