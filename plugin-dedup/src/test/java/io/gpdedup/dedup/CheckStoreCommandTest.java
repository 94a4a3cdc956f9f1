package io.gpdedup.dedup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.plugin.api.CommandDispatcher;
import io.gpdedup.protocol.wire.ProtocolVersions;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code check_store CFG} against a real store: a login that works, a refused one, and a port where nothing listens. */
class CheckStoreCommandTest {
    @TempDir
    Path dir;
    private LoopbackStore store;

    @BeforeEach
    void start() {
        store = LoopbackStore.start(dir.resolve("store"));
    }

    @AfterEach
    void stop() {
        store.close();
    }

    private Path config(int port, String password) throws IOException {
        return Files.writeString(dir.resolve("check.yaml"), "executablepath: /opt/gpdedup/bin/gpbackup_dedup_plugin\noptions:\n  hostname: 127.0.0.1\n"
                + "  port: \"" + port + "\"\n  username: " + LoopbackStore.USER + "\n  password: " + password + "\n  storage_unit: "
                + LoopbackStore.UNIT + "\n  directory: cluster1\n  log_directory: " + dir.resolve("logs") + "\n");
    }

    private record Result(int status, String out, String err) {
    }

    private static Result run(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = new CommandDispatcher(new DedupPlugin()).run(args, InputStream.nullInputStream(), out, new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void printsTheStoreItLoggedInTo() throws IOException {
        Result r = run("check_store", config(store.port(), LoopbackStore.PASSWORD).toString());
        assertEquals(0, r.status(), r.err());
        int newest = Collections.max(ProtocolVersions.SUPPORTED);
        assertEquals("gpdedup-store 127.0.0.1:" + store.port() + " protocol " + newest + " unit " + LoopbackStore.UNIT + "\n", r.out());
    }

    @Test
    void aRefusedLoginIsOneLineAndExitOne() throws IOException {
        Result r = run("check_store", config(store.port(), "not-the-password").toString());
        assertEquals(1, r.status());
        assertEquals("", r.out());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("refused user '" + LoopbackStore.USER + "' on storage unit '" + LoopbackStore.UNIT + "'"), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
    }

    @Test
    void aStoreThatIsNotThereIsOneLineAndExitOne() throws IOException {
        int free;
        try (ServerSocket s = new ServerSocket(0)) {
            free = s.getLocalPort();
        }
        Result r = run("check_store", config(free, LoopbackStore.PASSWORD).toString());
        assertEquals(1, r.status());
        assertEquals("", r.out());
        assertEquals(1, r.err().lines().count(), r.err());
        assertTrue(r.err().contains("127.0.0.1:" + free), r.err());
        assertFalse(r.err().contains("Exception"), r.err());
    }

    @Test
    void takesNoArgumentBeyondTheConfig() throws IOException {
        Result r = run("check_store", config(store.port(), LoopbackStore.PASSWORD).toString(), "extra");
        assertEquals(2, r.status());
        assertEquals("", r.out());
    }
}
