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
import io.gpdedup.tooling.TcpRelay;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Option {@code hostname} as a list of store addresses, through {@code dist/bin/gpbackup_dedup_plugin}
 * against a real {@code dist/bin/gpdedup-store}: a first address nothing listens on is passed over;
 * a backup whose store goes away mid-stream (a relay in front of it cuts every connection for good)
 * finishes, and restores byte for byte, through the second address (another relay to the same
 * store); a bad list fails the call with one line naming the option, storing nothing.
 */
@Timeout(600)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(WaitingLane.LOCK)
class StoreAddressesTest {
    private static final int OBJECT_BYTES = 24 << 20;
    /** A relay cut for this long is a store gone for good (closing it could race a reconnect in). */
    private static final Duration GONE = Duration.ofMinutes(10);

    @TempDir
    Path dir;

    private final Timestamps timestamps = new Timestamps();

    /** A plugin config of {@code host} whose hostname is {@code hostname} (port stays the store's). */
    private static String withHostname(StoreAndPlugin host, String name, String hostname) throws IOException {
        Path p = Path.of(host.config(name, host.storePort(), ""));
        String text = Files.readString(p);
        assertTrue(text.contains("  hostname: 127.0.0.1\n"), text);
        Files.writeString(p, text.replace("  hostname: 127.0.0.1\n", "  hostname: \"" + hostname + "\"\n"));
        return p.toString();
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Test
    void aFirstAddressNothingListensOnIsPassedOver() throws Exception {
        try (StoreAndPlugin host = StoreAndPlugin.start(dir, "", "off")) {
            int closed = closedPort();
            String key = host.key(0, timestamps.next(), 16384);
            // Control: the closed port alone fails the call.
            String alone = withHostname(host, "alone", "127.0.0.1:" + closed);
            host.plugin().run(new SeededBytes(61, 1000), "backup_data", alone, key).assertFailed();

            String cfg = withHostname(host, "list", "127.0.0.1:" + closed + ", 127.0.0.1");
            host.plugin().run("setup_plugin_for_backup", cfg, dir.resolve("setup").toString(), "master", "\"-1\"").assertSucceeded();
            host.plugin().run(new SeededBytes(62, 3 << 20), "backup_data", cfg, key).assertSucceeded();
            CallResult restored = host.plugin().run("restore_data", cfg, key).assertSucceeded();
            assertEquals(Sha256Sink.of(new SeededBytes(62, 3 << 20)), Sha256Sink.of(restored.stdout()));
        }
    }

    @ParameterizedTest(name = "GPDEDUP_AGENT={0}")
    @ValueSource(strings = {"require", "off"})
    void aBackupWhoseStoreGoesAwayMidStreamFinishesThroughTheOtherAddress(String agent) throws Exception {
        try (StoreAndPlugin host = StoreAndPlugin.start(dir, "", agent);
             TcpRelay first = TcpRelay.start(new InetSocketAddress("127.0.0.1", host.storePort()));
             TcpRelay second = TcpRelay.start(new InetSocketAddress("127.0.0.1", host.storePort()))) {
            String cfg = withHostname(host, "relays", "127.0.0.1:" + first.port() + ",127.0.0.1:" + second.port());
            String key = host.key(0, timestamps.next(), 16384);
            RunningCall backup = host.plugin().start("backup_data", cfg, key);
            new Cues().at(OBJECT_BYTES / 3, () -> first.cut(GONE)).copy(new SeededBytes(63, OBJECT_BYTES), backup.stdin());
            backup.finish(null).assertSucceeded();
            List<String> replaced = host.pluginLogLines("the last time by one to 127.0.0.1:" + second.port());
            assertEquals(1, replaced.size(), "the backup's connection to the first address was replaced by one to the second: "
                    + host.pluginLogLines("lost"));

            Cues.Restored r = new Cues().read(host.plugin().command("restore_data", cfg, key).start());
            assertEquals(0, r.exit(), r.stderr());
            assertEquals(OBJECT_BYTES, r.bytes());
            assertEquals(Sha256Sink.of(new SeededBytes(63, OBJECT_BYTES)), r.sha256());
        }
    }

    @Test
    void controlWithTheGoneAddressAloneTheSameBackupFails() throws Exception {
        try (StoreAndPlugin host = StoreAndPlugin.start(dir, "", "off");
             TcpRelay first = TcpRelay.start(new InetSocketAddress("127.0.0.1", host.storePort()))) {
            Path p = Path.of(host.config("relay", first.port(), "  reconnect_timeout_seconds: \"2\"\n"));
            String key = host.key(0, timestamps.next(), 16384);
            RunningCall backup = host.plugin().start("backup_data", p.toString(), key);
            try {
                new Cues().at(OBJECT_BYTES / 3, () -> first.cut(GONE)).copy(new SeededBytes(64, OBJECT_BYTES), backup.stdin());
            } catch (IOException pluginGaveUp) {
                // It exited before reading all of its stdin: its exit status tells.
            }
            CallResult b = backup.finish(null);
            assertNotEquals(0, b.exitCode(), b.toString());
            assertTrue(b.stderr().contains("no new connection within 2 s"), b.stderr());
        }
    }

    @Test
    void aBadListFailsWithOneLineNamingTheOptionAndStoresNothing() throws Exception {
        try (StoreAndPlugin host = StoreAndPlugin.start(dir, "", "off")) {
            int port = host.storePort();
            String[][] cases = {
                    {"127.0.0.1,,127.0.0.1:" + port, "option 'hostname' has an empty entry"},
                    {"127.0.0.1:" + port + ",", "option 'hostname' has an empty entry"},
                    {"127.0.0.1:70000", "option 'hostname' has port '70000' in entry '127.0.0.1:70000': a port is 1..65535"},
                    {"127.0.0.1:x", "option 'hostname' has port 'x'"},
                    {"127.0.0.1,127.0.0.1:" + port, "option 'hostname' lists 127.0.0.1:" + port + " twice"},
                    {"[::1:" + port, "option 'hostname' has entry '[::1:" + port + "': write an IPv6 address as [address] or [address]:port"},
            };
            for (String[] c : cases) {
                String cfg = withHostname(host, "bad", c[0]);
                String key = host.key(0, timestamps.next(), 16384);
                CallResult r = host.plugin().run(new SeededBytes(65, 100_000), "backup_data", cfg, key);
                assertNotEquals(0, r.exitCode(), r.toString());
                assertEquals(1, r.stderr().lines().count(), r.toString());
                assertTrue(r.stderr().contains(c[1]), c[0] + ": " + r.stderr());
                assertFalse(r.stderr().contains("Exception") || r.stderr().contains("\tat "), r.stderr());
            }
            String good = withHostname(host, "good", "127.0.0.1:" + port);
            assertEquals("", host.plugin().run("list_directory", good).assertSucceeded().stdoutText().strip(), "nothing was stored");
            // Control: the same call with a good list stores.
            String key = host.key(0, timestamps.next(), 16384);
            host.plugin().run(new SeededBytes(65, 100_000), "backup_data", withHostname(host, "good-list", "127.0.0.1:" + port + ",[::1]:" + port), key)
                    .assertSucceeded();
            assertFalse(host.plugin().run("list_directory", good).assertSucceeded().stdoutText().isBlank(), "the good list stored");
        }
    }
}
