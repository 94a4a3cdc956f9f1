package io.gpdedup.plugin.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The agent in this JVM, driven through the wire protocol by {@link WireClient}. */
class HostAgentTest {
    private static final String KEY = "/data/gpseg0/backups/20261123/20261123045500/gpbackup_0_20261123045500_";
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path tmp;
    private Path run;
    private Path socket;
    private Path store;
    private Path config;
    private final ByteArrayOutputStream agentLog = new ByteArrayOutputStream();
    private final List<HostAgent> agents = new ArrayList<>();

    @BeforeEach
    void setUp() throws IOException {
        run = Files.createDirectory(tmp.resolve("run"), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        socket = run.resolve("agent.sock");
        store = tmp.resolve("store");
        config = tmp.resolve("plugin.yaml");
        Files.writeString(config, "executablepath: /usr/bin/true\noptions:\n  directory: " + store + "\n  log_directory: " + tmp.resolve("logs") + "\n");
    }

    @AfterEach
    void stopAgents() {
        agents.forEach(a -> a.stop("test over"));
    }

    private HostAgent start(CallHandler handler, Duration idle) throws IOException {
        HostAgent a = HostAgent.start(handler, socket, idle, new AgentLog(new PrintStream(agentLog, true, StandardCharsets.UTF_8)))
                .orElseThrow(() -> new AssertionError("another agent answers on " + socket));
        agents.add(a);
        return a;
    }

    private HostAgent startStore() throws IOException {
        return start(new DispatchingHandler(new TestStorePlugin()), Duration.ofMinutes(5));
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    @Test
    void backupThenRestoreRoundTripsTwelveMegabytes() throws Exception {
        startStore();
        byte[] data = random(12 << 20, 1);
        try (WireClient c = WireClient.call(socket, tmp, "backup_data", config.toString(), KEY + "1")) {
            assertTrue(c.awaitStdinRequest());
            c.sendStdin(data, 60_000);
            c.sendEof();
            assertEquals(0, c.awaitExit(), c.stderr());
            assertEquals("", c.stderr());
        }
        try (WireClient c = WireClient.call(socket, tmp, "restore_data", config.toString(), KEY + "1")) {
            assertEquals(0, c.awaitExit(), c.stderr());
            assertArrayEquals(data, c.stdout());
            assertEquals("", c.stderr());
        }
    }

    @Test
    void relaysTwelveMegabytesBothWaysAtOnce() throws Exception {
        start(new EchoHandler(), Duration.ofMinutes(5));
        byte[] data = random(12 << 20, 2);
        ExecutorService writer = Executors.newSingleThreadExecutor();
        try (WireClient c = WireClient.call(socket, tmp, "echo", "7")) {
            assertTrue(c.awaitStdinRequest());
            // The echo handler writes while we still write: both directions are in flight together.
            Future<?> sent = writer.submit(() -> {
                c.sendStdin(data, 100_000);
                c.sendEof();
                return null;
            });
            assertEquals(7, c.awaitExit());
            sent.get(WAIT.toSeconds(), TimeUnit.SECONDS);
            assertArrayEquals(data, c.stdout());
            assertEquals("echoed " + data.length + " bytes\n", c.stderr());
        } finally {
            writer.shutdownNow();
        }
    }

    @Test
    void relaysExitStatusAndStderrOfFailures() throws Exception {
        startStore();
        try (WireClient c = WireClient.call(socket, tmp, "restore_data", config.toString(), KEY + "missing")) {
            assertEquals(1, c.awaitExit());
            assertEquals(0, c.stdout().length);
            assertTrue(c.stderr().contains("no object backups/20261123/20261123045500/gpbackup_0_20261123045500_missing"), c.stderr());
        }
        try (WireClient c = WireClient.call(socket, tmp, "restore_data", config.toString())) {
            assertEquals(2, c.awaitExit());
            assertTrue(c.stderr().contains("usage:"), c.stderr());
        }
        try (WireClient c = WireClient.call(socket, tmp, "plugin_api_version")) {
            assertEquals(0, c.awaitExit());
            assertEquals("0.5.0\n", new String(c.stdout(), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void resolvesRelativePathsAgainstTheCallersDirectory() throws Exception {
        startStore();
        try (WireClient c = WireClient.call(socket, tmp, "backup_data", "plugin.yaml", KEY + "rel")) {
            assertTrue(c.awaitStdinRequest());
            c.sendStdin("relative".getBytes(StandardCharsets.US_ASCII), 10);
            c.sendEof();
            assertEquals(0, c.awaitExit(), c.stderr());
        }
        assertEquals("relative", Files.readString(TestStorePlugin.objectFile(store, KEY + "rel")));
        try (WireClient c = WireClient.call(socket, run, "backup_data", "plugin.yaml", KEY + "rel2")) {
            // A failed backup_data drains its stdin before it exits: end that stdin, as gpbackup_helper does
            // after its last table, rather than wait out the drain's time bound.
            if (c.awaitStdinRequest()) {
                c.sendEof();
            }
            assertEquals(1, c.awaitExit());
            assertTrue(c.stderr().contains(run.resolve("plugin.yaml").toString()), c.stderr());
        }
    }

    @Test
    void callerVanishingMidStreamFailsTheBackupAndCommitsNothing() throws Exception {
        startStore();
        try (WireClient c = WireClient.call(socket, tmp, "backup_data", config.toString(), KEY + "cut")) {
            assertTrue(c.awaitStdinRequest());
            c.sendStdin(random(3 << 20, 3), 65536);
        } // closed without STDIN_EOF, as when the launcher is killed
        String failure = TestStorePlugin.awaitFailure(store, KEY + "cut", WAIT);
        assertTrue(failure.contains("before the end of its stdin"), failure);
        assertFalse(Files.exists(TestStorePlugin.objectFile(store, KEY + "cut")));
        // The agent carries on serving.
        try (WireClient c = WireClient.call(socket, tmp, "plugin_api_version")) {
            assertEquals(0, c.awaitExit());
        }
    }

    /** The launcher found the caller's stdin or stdout closed (and put /dev/null there): the call fails, never uses it. */
    @Test
    void aClosedStdinOrStdoutFailsTheCallWithoutTouchingIt() throws Exception {
        startStore();
        try (WireClient c = WireClient.call(socket, tmp, CallerStdio.STDIN_CLOSED, "backup_data", config.toString(), KEY + "closedin")) {
            assertFalse(c.awaitStdinRequest(), "asked the launcher for a stdin it said was closed");
            assertEquals(1, c.awaitExit());
            assertTrue(c.stderr().contains("stdin is closed"), c.stderr());
        }
        assertFalse(Files.exists(TestStorePlugin.objectFile(store, KEY + "closedin")));
        byte[] data = random(100_000, 5);
        try (WireClient c = WireClient.call(socket, tmp, "backup_data", config.toString(), KEY + "closedout")) {
            assertTrue(c.awaitStdinRequest());
            c.sendStdin(data, 65536);
            c.sendEof();
            assertEquals(0, c.awaitExit(), c.stderr());
        }
        try (WireClient c = WireClient.call(socket, tmp, CallerStdio.STDOUT_CLOSED, "restore_data", config.toString(), KEY + "closedout")) {
            assertEquals(1, c.awaitExit());
            assertEquals(0, c.stdout().length);
            assertTrue(c.stderr().contains("stdout is closed"), c.stderr());
        }
    }

    @Test
    void stdinAbortFailsTheCallWithTheLaunchersReason() throws Exception {
        startStore();
        try (WireClient c = WireClient.call(socket, tmp, "backup_data", config.toString(), KEY + "abort")) {
            assertTrue(c.awaitStdinRequest());
            c.sendStdin(random(100_000, 4), 65536);
            c.send(FrameType.STDIN_ABORT, "Input/output error".getBytes(StandardCharsets.UTF_8));
            assertEquals(1, c.awaitExit());
            assertTrue(c.stderr().contains("reading the caller's stdin failed: Input/output error"), c.stderr());
        }
        assertFalse(Files.exists(TestStorePlugin.objectFile(store, KEY + "abort")));
    }

    @Test
    void servesCallsConcurrently() throws Exception {
        startStore();
        int n = 6;
        List<WireClient> clients = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                clients.add(WireClient.call(socket, tmp, "backup_data", config.toString(), KEY + "c" + i));
            }
            // Every call reads stdin before any of them got a byte: only possible if all run at once.
            for (WireClient c : clients) {
                assertTrue(c.awaitStdinRequest());
            }
            for (int i = 0; i < n; i++) {
                clients.get(i).sendStdin(random(200_000, 10 + i), 50_000);
            }
            for (WireClient c : clients) {
                c.sendEof();
            }
            for (int i = 0; i < n; i++) {
                assertEquals(0, clients.get(i).awaitExit(), clients.get(i).stderr());
                assertArrayEquals(random(200_000, 10 + i), Files.readAllBytes(TestStorePlugin.objectFile(store, KEY + "c" + i)));
            }
        } finally {
            for (WireClient c : clients) {
                c.close();
            }
        }
    }

    @Test
    void exitsWhenIdleButNeverDuringACall() throws Exception {
        HostAgent agent = start(new DispatchingHandler(new TestStorePlugin()), Duration.ofMillis(300));
        try (WireClient c = WireClient.call(socket, tmp, "backup_data", config.toString(), KEY + "slow")) {
            assertTrue(c.awaitStdinRequest());
            c.sendStdin(new byte[1000], 500);
            // Hold the call open for several idle periods.
            assertFalse(agent.awaitStop(Duration.ofMillis(1200)), "agent stopped during a call");
            c.sendStdin(new byte[1000], 500);
            c.sendEof();
            assertEquals(0, c.awaitExit(), c.stderr());
        }
        assertTrue(agent.awaitStop(WAIT), "agent did not stop when idle");
        assertTrue(agent.stopReason().startsWith("idle"), agent.stopReason());
        assertFalse(Files.exists(socket), "socket file left behind");
        assertEquals(2000, Files.size(TestStorePlugin.objectFile(store, KEY + "slow")));
    }

    @Test
    void replacesAStaleSocketFile() throws Exception {
        try (ServerSocketChannel dead = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            dead.bind(UnixDomainSocketAddress.of(socket));
        } // closed without unlinking: a stale file that refuses connections
        assertTrue(Files.exists(socket));
        assertFalse(AgentSocket.answers(socket));
        startStore();
        try (WireClient c = WireClient.call(socket, tmp, "plugin_api_version")) {
            assertEquals(0, c.awaitExit());
        }
    }

    @Test
    void aSecondAgentLeavesALiveOneAlone() throws Exception {
        startStore();
        assertTrue(HostAgent.start(new EchoHandler(), socket, Duration.ofMinutes(1), new AgentLog(System.err)).isEmpty());
        try (WireClient c = WireClient.call(socket, tmp, "plugin_api_version")) {
            assertEquals(0, c.awaitExit());
            assertEquals("0.5.0\n", new String(c.stdout(), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void stopsWhenItsSocketIsTakenOver() throws Exception {
        HostAgent agent = startStore();
        Path other = run.resolve("other");
        Files.writeString(other, "not a socket");
        Files.move(other, socket, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        assertTrue(agent.awaitStop(WAIT));
        assertTrue(agent.stopReason().contains("taken over"), agent.stopReason());
        assertTrue(Files.exists(socket), "the agent removed a path that was no longer its own");
    }

    @Test
    void refusesASocketDirectoryOthersCanEnter() throws Exception {
        Files.setPosixFilePermissions(run, PosixFilePermissions.fromString("rwxr-xr-x"));
        IOException e = assertThrows(IOException.class, this::startStore);
        assertTrue(e.getMessage().contains("accessible by other users"), e.getMessage());
        assertFalse(Files.exists(socket));
    }

    @Test
    void refusesCallersOfAnotherUser() throws Exception {
        UserPrincipal nobody = tmp.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("nobody");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(socket));
            try (WireClient c = WireClient.call(socket, tmp, "plugin_api_version"); SocketChannel accepted = server.accept()) {
                // A session that serves only "nobody" sees this test's uid as the peer.
                new CallSession(accepted, nobody, new EchoHandler(), new AgentLog(System.err)).run();
                String reason = c.awaitRejectedOrClose();
                assertNotNull(reason);
                assertTrue(reason.contains("serves only user nobody"), reason);
                assertFalse(c.accepted());
            }
        }
    }

    @Test
    void refusesOtherProtocolVersionsBeforeAcceptingAnything() throws Exception {
        startStore();
        try (WireClient c = WireClient.connect(socket)) {
            byte[] call = new CallRequest(CallRequest.VERSION, 1, tmp, List.of("backup_data", config.toString(), KEY + "v")).encode();
            call[1] = 9; // version 9
            c.send(FrameType.CALL, call);
            String reason = c.awaitRejectedOrClose();
            assertTrue(reason != null && reason.contains("protocol version 9"), String.valueOf(reason));
        }
        try (WireClient c = WireClient.connect(socket)) {
            c.send(FrameType.STDIN, new byte[10]); // not a CALL
            assertNull(c.awaitRejectedOrClose());
            assertFalse(c.accepted());
        }
        assertFalse(Files.exists(TestStorePlugin.objectFile(store, KEY + "v")));
    }
}
