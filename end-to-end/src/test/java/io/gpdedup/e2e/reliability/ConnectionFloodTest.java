package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.PluginShell;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A flood of TCP connections that never send a byte against a real {@code dist/bin/gpdedup-store}
 * whose open-file limit is 320 ({@code ulimit -n}): 700 from 127.0.0.2 and 300 from 127.0.0.1,
 * the address the backup then comes from. The store must keep its descriptors for real work: the
 * plugin ({@code dist/bin/gpbackup_dedup_plugin}, host agent) then backs up and restores byte for
 * byte from 127.0.0.1, every idle connection is closed by the store (refused, closed to make room,
 * or closed after {@code login-timeout-seconds}), the store never runs out of descriptors, and
 * its log counts what it refused in a few lines, not one per connection.
 */
@Timeout(300)
class ConnectionFloodTest {
    private static final int OPEN_FILES = 320;
    private static final int FROM_OTHER = 700;
    private static final int FROM_BACKUP_HOST = 300;
    private static final int LOGIN_TIMEOUT_SECONDS = 3;
    private static final String PASSWORD = "flood-test-password";
    private static final String KEY = "/data/gpseg0/backups/20261123/20261123140000/gpbackup_0_20261123140000_1";

    @TempDir
    Path dir;

    @Test
    void idleConnectionsCannotTakeTheDescriptorsABackupNeeds() throws Exception {
        Path home = dir.resolve("store-home");
        StoreProcess.writeConfig(home, "data-dir: data\nlogin-timeout-seconds: " + LOGIN_TIMEOUT_SECONDS + "\n", PASSWORD, 1_000);
        Path agentDir = dir.resolve("agent");
        List<Socket> idle = new ArrayList<>();
        try (StoreProcess store = StoreProcess.startWithOpenFileLimit(home, List.of("--port", "0", "--metrics-port", "-1"), OPEN_FILES)) {
            long limit = openFileLimit(store.pid());
            assertEquals(OPEN_FILES, limit, "the store's open-file limit");
            int notConnected = 0;
            for (int i = 0; i < FROM_OTHER + FROM_BACKUP_HOST; i++) {
                String from = i < FROM_OTHER ? "127.0.0.2" : "127.0.0.1";
                Socket s = new Socket();
                try {
                    s.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
                    s.connect(new InetSocketAddress("127.0.0.1", store.port()), 10_000);
                    idle.add(s);
                } catch (IOException e) {
                    s.close(); // the listen backlog was full: refused before the store saw it
                    notConnected++;
                }
            }
            int openAfterFlood = descriptors(store.pid());

            PluginShell plugin = new PluginShell(Dist.executable("gpbackup_dedup_plugin"), Files.createDirectories(dir.resolve("cwd")),
                    Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
            Path cfg = DedupFixture.writeConfig(dir.resolve("plugin.yaml"), store.port(), PASSWORD, dir.resolve("logs"), "");
            byte[] data = SeededBytes.array(23, 2_000_000);
            plugin.run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), KEY).assertSucceeded();
            CallResult restored = plugin.run("restore_data", cfg.toString(), KEY).assertSucceeded();
            assertArrayEquals(data, restored.stdout(), "restore after the flood");

            int closedByStore = 0;
            for (Socket s : idle) {
                if (closedByStore(s)) {
                    closedByStore++;
                }
            }
            String log = awaitLog(home, "connections closed for not logging in within " + LOGIN_TIMEOUT_SECONDS + " s");
            long refusalLines = log.lines().filter(l -> l.contains("refused in the last")).count();
            System.out.printf("%d idle connects (%d from 127.0.0.2, %d from 127.0.0.1; %d not even accepted by the kernel) against a store"
                    + " with %d open files allowed: %d descriptors open after the flood; backup and restore of %d bytes from 127.0.0.1"
                    + " succeeded; %d of %d idle connections closed by the store; %d refusal lines logged:%n%s%n",
                    FROM_OTHER + FROM_BACKUP_HOST, FROM_OTHER, FROM_BACKUP_HOST, notConnected, limit, openAfterFlood, data.length, closedByStore,
                    idle.size(), refusalLines, log.lines().filter(l -> l.contains("refused in the last") || l.contains("connections: at most"))
                            .reduce((x, y) -> x + "\n" + y).orElse(""));
            assertEquals(idle.size(), closedByStore, "idle connections the store closed");
            assertTrue(refusalLines >= 1 && refusalLines <= 20, refusalLines + " refusal lines");
            assertTrue(log.contains("connections closed while waiting to log in, to make room from 127.0.0.2")
                    || log.contains("connections refused"), log);
            assertFalse(log.contains("Too many open files"), log);
        } finally {
            for (Socket s : idle) {
                s.close();
            }
            HostAgents.kill(agentDir);
        }
    }

    /** Whether the server closed the connection: end of stream, or a reset, within 30 s (an ERROR frame may come first). */
    private static boolean closedByStore(Socket s) throws IOException {
        s.setSoTimeout(30_000);
        try {
            byte[] buf = new byte[512];
            while (true) {
                if (s.getInputStream().read(buf) < 0) {
                    return true;
                }
            }
        } catch (SocketTimeoutException e) {
            return false;
        } catch (SocketException reset) {
            return true;
        }
    }

    private static String awaitLog(Path home, String expected) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        String log = Files.readString(home.resolve("store.err"));
        while (!log.contains(expected) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            log = Files.readString(home.resolve("store.err"));
        }
        assertTrue(log.contains(expected), log);
        return log;
    }

    private static long openFileLimit(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/limits"))) {
            if (line.startsWith("Max open files")) {
                return Long.parseLong(line.replaceAll("^Max open files\\s+(\\d+).*$", "$1"));
            }
        }
        throw new IOException("no open-file limit in /proc/" + pid + "/limits");
    }

    private static int descriptors(long pid) throws IOException {
        try (var s = Files.list(Path.of("/proc/" + pid + "/fd"))) {
            return (int) s.count();
        }
    }
}
