package io.gpdedup.store.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.NotServedServer;
import io.gpdedup.store.net.StoreFixture;
import io.gpdedup.testsupport.ConsoleCapture;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * An admin command's {@code --host} as a list of stores, as a plugin's {@code hostname}: it passes
 * over a port nothing listens on and a standby that answers NOT_SERVED to the store that serves the
 * unit; without that store it fails with one line naming what each address answered; a bad list
 * is one line naming {@code --host}, exit 2.
 */
@Timeout(120)
class AdminHostListTest {
    @TempDir
    Path dir;

    private static int closedPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private ConsoleCapture stat(String hosts, int port) throws Exception {
        Path pw = dir.resolve("pw");
        Files.writeString(pw, StoreFixture.PASSWORD_A + "\n");
        return ConsoleCapture.run(() -> StoreMain.run("stat", "--json", "--host", hosts, "--port", String.valueOf(port), "--unit",
                StoreFixture.UNIT_A, "--user", StoreFixture.USER_A, "--password-file", pw.toString()));
    }

    @Test
    void theStoreThatServesTheUnitIsFoundPastAClosedPortAndAStandby() throws Exception {
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"));
             NotServedServer standby = NotServedServer.start()) {
            int closed = closedPort();
            // The last entry has no port: it gets --port's.
            ConsoleCapture run = stat("127.0.0.1:" + closed + ", 127.0.0.1:" + standby.port() + ",127.0.0.1", store.port());
            assertEquals(0, run.exit(), run.err());
            assertTrue(run.out().contains("\"unit\" : \"" + StoreFixture.UNIT_A + "\""), run.out());
            assertEquals(1, standby.logins());

            // Control: without the serving store, one line with what each address answered.
            ConsoleCapture none = stat("127.0.0.1:" + closed + ",127.0.0.1:" + standby.port(), store.port());
            assertEquals(1, none.exit(), none.err());
            String line = none.err().strip();
            assertEquals(1, line.lines().count(), line);
            assertTrue(line.startsWith("gpdedup-store: ") && line.contains("127.0.0.1:" + closed + " refused the connection")
                    && line.contains("127.0.0.1:" + standby.port() + " does not hold it now (standby)"), line);
            assertFalse(line.contains("Exception"), line);
            assertEquals("", none.out());
        }
    }

    @Test
    void aBadListIsOneLineNamingTheOptionAndExitTwo() throws Exception {
        String[][] cases = {
                {"127.0.0.1,,127.0.0.1:7412", "gpdedup-store: --host has an empty entry"},
                {"127.0.0.1:70000", "gpdedup-store: --host has port '70000' in entry '127.0.0.1:70000': a port is 1..65535"},
                {"127.0.0.1,127.0.0.1:7411", "gpdedup-store: --host lists 127.0.0.1:7411 twice"},
        };
        for (String[] c : cases) {
            ConsoleCapture run = stat(c[0], 7411);
            assertEquals(2, run.exit(), c[0] + ": " + run.err());
            assertEquals(1, run.err().strip().lines().count(), run.err());
            assertTrue(run.err().startsWith(c[1]), c[0] + ": " + run.err());
        }
    }
}
