package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.layout.Timestamps;
import io.gpdedup.e2e.shell.CallResult;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * The connection mistakes people make, through {@code dist/bin/gpbackup_dedup_plugin} against a real
 * {@code dist/bin/gpdedup-store}: a port nothing listens on, a listener that accepts and never
 * answers, a wrong user, a wrong storage unit. Each call fails with one line on stderr that names
 * the store once, gives durations in seconds and names the options to fix; nothing is stored.
 */
@Timeout(120)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(WaitingLane.LOCK)
class ConnectErrorsTest {
    @TempDir
    Path dir;

    private final Timestamps timestamps = new Timestamps();

    @Test
    void eachMistakeFailsWithOneLineNamingTheOptionToFix() throws Exception {
        try (StoreAndPlugin host = StoreAndPlugin.start(dir, "", "off")) {
            int closedPort;
            try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
                closedPort = s.getLocalPort();
            }
            String setupDir = dir.resolve("setup").toString();

            CallResult refusedHook = host.plugin().run("setup_plugin_for_backup", host.config("closed", closedPort, ""), setupDir, "master", "\"-1\"");
            String line = oneLine(refusedHook);
            assertTrue(line.contains("cannot connect to gpdedup-store at 127.0.0.1:" + closedPort), line);
            assertTrue(line.contains("check options hostname and port"), line);

            String patient = host.config("closed-patient", closedPort, "  connect_timeout_seconds: \"2\"\n");
            CallResult refusedData = host.plugin().run(new SeededBytes(1, 1000), "backup_data", patient, host.key(0, timestamps.next(), 16384));
            line = oneLine(refusedData);
            assertTrue(line.contains("tried for 2 s") && line.contains("raise connect_timeout_seconds"), line);

            // Accepted by the kernel's backlog, never answered: the default connect timeout ends the wait.
            try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
                CallResult r = host.plugin().run(new SeededBytes(2, 1000), "backup_data", host.config("silent", silent.getLocalPort(), ""),
                        host.key(0, timestamps.next(), 16384));
                line = oneLine(r);
                assertTrue(line.contains("did not answer the handshake within 10 s"), line);
                assertTrue(line.contains("raise connect_timeout_seconds"), line);
            }

            String right = host.config("right", host.storePort(), "");
            String wrongUser = host.config("wrong-user", host.storePort(), "");
            rewrite(wrongUser, "  username: backup\n", "  username: nobody\n");
            line = oneLine(host.plugin().run(new SeededBytes(3, 1000), "backup_data", wrongUser, host.key(0, timestamps.next(), 16384)));
            assertTrue(line.contains("refused user 'nobody'") && line.contains("check options username, password and storage_unit"), line);

            String wrongUnit = host.config("wrong-unit", host.storePort(), "");
            rewrite(wrongUnit, "  storage_unit: prod\n", "  storage_unit: prd\n");
            line = oneLine(host.plugin().run(new SeededBytes(4, 1000), "backup_data", wrongUnit, host.key(0, timestamps.next(), 16384)));
            assertTrue(line.contains("storage unit 'prd'") && line.contains("storage_unit"), line);

            String listed = host.plugin().run("list_directory", right).assertSucceeded().stdoutText();
            assertEquals("", listed.strip(), "nothing was stored");
        }
    }

    private static void rewrite(String file, String from, String to) throws java.io.IOException {
        Path p = Path.of(file);
        String text = java.nio.file.Files.readString(p);
        assertTrue(text.contains(from), text);
        java.nio.file.Files.writeString(p, text.replace(from, to));
    }

    /** The call failed with one line that names the store once and no Java exception. */
    private static String oneLine(CallResult r) {
        assertFalse(r.exitCode() == 0, r.toString());
        assertEquals(1, r.stderr().lines().count(), r.toString());
        String line = r.stderr().strip();
        assertEquals(1, line.split("gpdedup-store at ", -1).length - 1, "the store is named once: " + line);
        assertFalse(line.contains("Exception") || line.contains("PT"), line);
        return line;
    }
}
