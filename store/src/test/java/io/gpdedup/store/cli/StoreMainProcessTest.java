package io.gpdedup.store.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.store.StoreRun;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.engine.DedupStoreEngine;
import io.gpdedup.testsupport.ConsoleCapture;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpdedup-store} as a user starts it: its own JVM, no arguments, HOME pointing at a temp dir. */
class StoreMainProcessTest {

    @Test
    void noArgumentsServesTheDemoStoreAndSigtermStopsItCleanly(@TempDir Path home) throws Exception {
        // With no arguments the store takes its documented default ports; if a store already runs
        // on this machine, this test cannot run without disturbing it.
        assumeTrue(free(StoreConfig.DEFAULT_PORT) && free(StoreConfig.DEFAULT_METRICS_PORT), "ports 7411/7412 are in use");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"), StoreMain.class.getName());
        pb.environment().put("HOME", home.toString());
        Path stderr = home.resolve("stderr.txt");
        pb.redirectError(stderr.toFile());
        Process p = pb.start();
        try {
            String line = StoreRun.firstLine(p);
            assertEquals("gpdedup-store listening on 127.0.0.1:7411", line, () -> "stderr: " + read(stderr));

            Path dataDir = home.resolve(".gpdedup").resolve("store");
            assertEquals("7411", Files.readString(dataDir.resolve("store.port")).trim());
            assertTrue(Files.readString(home.resolve(".gpdedup").resolve("store.yaml")).contains("DEMO"));

            byte[] raw = new byte[200_000];
            new Random(9).nextBytes(raw);
            Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
            Recipe recipe = new Recipe(List.of(new ChunkRef(fp, raw.length)), raw.length, Fingerprint.newDigest().digest(raw));
            String name = "demo/backups/20261123/20261123000000/file";
            try (StoreClient client = StoreClient.connect(ClientSettings.of("127.0.0.1", 7411, "gpdedup", "gpdedup", "gpdedup"))) {
                try (BackupSession s = client.beginBackup()) {
                    assertTrue(s.missing(new Fingerprint[] {fp}).join()[0]);
                    s.put(List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw))).join();
                    s.commit(name, recipe).join();
                }
                StoredChunk back = client.chunks(new Fingerprint[] {fp}).join().get(0);
                assertArrayEquals(raw, back.payload());
            }

            String metrics;
            try (InputStream in = new URL("http://127.0.0.1:7412/metrics").openStream()) {
                metrics = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertTrue(metrics.contains("gpdedup_store_commits_total 1.0"), metrics);

            String listed = runInProcess("list", "--port", "7411");
            assertTrue(listed.contains("200000\t") && listed.contains(name), listed);
            String stat = runInProcess("stat", "--port", "7411");
            assertTrue(stat.contains("objects:        1"), stat);

            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "stops after SIGTERM");
            assertEquals(0, p.exitValue(), () -> "exit status; stderr: " + read(stderr));
            assertFalse(Files.exists(dataDir.resolve("store.port")), "port file removed");
            // The engine was closed (lock released) and the commit is on disk.
            try (DedupStoreEngine engine = DedupStoreEngine.open(dataDir)) {
                assertEquals(recipe.chunks(), engine.unit("gpdedup").recipe(name).orElseThrow().chunks());
            }
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void hashPasswordPrintsAHashOfStandardInput() throws Exception {
        InputStream oldIn = System.in;
        try {
            System.setIn(new ByteArrayInputStream("s3cret pass\n".getBytes(StandardCharsets.UTF_8)));
            String printed = runInProcess("hash-password", "--iterations", "1000").trim();
            assertTrue(PasswordHash.parse(printed).matches("s3cret pass".toCharArray()), printed);
            assertFalse(printed.contains("s3cret"));
        } finally {
            System.setIn(oldIn);
        }
    }

    @Test
    void anApplianceProfileIsRefusedByTheProductStoreInOneLine(@TempDir Path dir) throws Exception {
        // The store's own classpath has no appliance module (as the product's): serve must say so, open nothing and exit 2.
        Path cfg = dir.resolve("store.yaml");
        Files.writeString(cfg, "port: 0\ndata-dir: data\nunits: {u: {users: {a: '"
                + PasswordHash.create("x".toCharArray(), 1000).encoded() + "'}}}\n");
        ConsoleCapture run = ConsoleCapture.run(
                () -> StoreMain.run("serve", "--config", cfg.toString(), "--appliance-profile", dir.resolve("p.yaml").toString()));
        String said = run.err();
        assertEquals(2, run.exit(), said);
        assertEquals("gpdedup-store: --appliance-profile is not part of the product gpdedup-store: "
                + "serve through a simulated appliance with gpdedup-appliance serve --appliance-profile FILE\n",
                said);
        assertTrue(Files.notExists(dir.resolve("data")), "nothing was created");
    }

    /** Runs a subcommand in this JVM; returns its stdout, fails on a non-zero exit. */
    private static String runInProcess(String... args) {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        int status;
        try {
            System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
            status = StoreMain.run(args);
        } finally {
            System.setOut(old);
        }
        String out = buf.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, () -> String.join(" ", args) + " printed: " + out);
        return out;
    }

    private static boolean free(int port) {
        try (ServerSocket s = new ServerSocket(port, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort() == port;
        } catch (IOException e) {
            return false;
        }
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }
}
