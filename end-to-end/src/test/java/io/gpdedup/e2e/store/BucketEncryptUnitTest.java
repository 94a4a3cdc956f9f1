package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.testsupport.ByteSearch;
import io.gpdedup.testsupport.FaultProxy;
import io.gpdedup.testsupport.S3Server;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dist/bin/gpdedup-store encrypt-unit} on a plaintext unit in a bucket (S3Proxy): backups
 * made through {@code dist/bin/gpbackup_dedup_plugin} and a store process are served byte-exact
 * by the store started with the key afterwards, and no object of the bucket holds a marker of
 * their bytes; a run killed before or after its commit leaves a unit the store refuses with one
 * line, and running it again finishes; a missing key and a unit another store serves are refused
 * with one line, the bucket unchanged.
 */
@Timeout(600)
class BucketEncryptUnitTest {
    private static final String PASSWORD = "backup-pw";
    private static final byte[] MARKER = "gpdedup-convert-marker-5d81e0".getBytes(StandardCharsets.US_ASCII);
    private static final String[] STAMPS = {"20261101100000", "20261102100000", "20261103100000"};

    @TempDir
    Path dir;

    private Path home;
    private Path agentDir;
    private PluginShell plugin;
    private String bucket;
    private FaultProxy proxy;
    private int port;
    /** Recipes in the plaintext unit: the backups' and the plugin's own. */
    private long recipes;

    @BeforeEach
    void setUp() throws IOException {
        home = dir.resolve("store-home");
        agentDir = dir.resolve("agent");
        plugin = new PluginShell(Dist.executable(DedupFixture.EXECUTABLE), Files.createDirectories(dir.resolve("cwd")),
                Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
        bucket = S3Server.shared().newBucket("convert");
        proxy = FaultProxy.start(S3Server.shared().port());
    }

    @AfterEach
    void tearDown() {
        HostAgents.kill(agentDir);
        proxy.close();
    }

    @Test
    void aPlaintextBucketUnitIsEncryptedAndServesEveryBackupByteExact() throws Exception {
        Map<String, byte[]> backups = backUpPlaintext();
        Map<String, String> before = objects();

        // Refused, the bucket unchanged: no key in the config.
        writeConfig("store", null);
        Run noKey = encryptUnit();
        assertOneLine(noKey, 2, "gpdedup-store encrypt-unit: the config has no encryption: set encryption.key-file or encryption.key-command");
        assertEquals(before, objects());

        // Refused, the bucket unchanged but for the lease: another store serves the unit.
        Path key = newKey();
        writeConfig("store", null);
        try (StoreProcess store = StoreProcess.start(home, List.of("--port", "0", "--metrics-port", "-1"))) {
            port = store.port();
            assertArrayEquals(backups.get(STAMPS[0]), restore(STAMPS[0]), "control: the unit is served, so its lease is held");
            writeConfig("other-store", key);
            Run held = encryptUnit();
            assertOneLine(held, 2, "gpdedup-store encrypt-unit: storage unit prod is served by the store on host");
            assertEquals(withoutLease(before), withoutLease(objects()));
        }

        writeConfig("store", key);
        Run converted = encryptUnit();
        assertEquals(0, converted.exit(), converted.toString());
        assertTrue(converted.stdout().contains("unit prod encrypted under key ") && converted.stdout().contains(" " + recipes + " recipe(s) sealed"),
                converted.toString());
        assertSealed();
        assertServed(backups);

        Run again = encryptUnit();
        assertEquals(0, again.exit(), again.toString());
        assertTrue(again.stdout().startsWith("unit prod is already encrypted under key "), again.toString());
    }

    @Test
    void aRunKilledBeforeOrAfterItsCommitIsFinishedByRunningItAgain() throws Exception {
        Map<String, byte[]> backups = backUpPlaintext();
        Path key = newKey();
        writeConfig("store", key);

        // Before the commit: killed while the first sealed index object is on its way.
        killWhileHeld(".idx");
        Map<String, String> cut = objects();
        assertFalse(cut.keySet().stream().anyMatch(k -> k.endsWith("/units/prod/keys")), "not committed: " + cut.keySet());
        assertTrue(cut.keySet().stream().anyMatch(k -> k.endsWith("/units/prod/containers/encrypting")), cut.keySet().toString());
        assertRefusedAtStart();

        // After the commit: killed while the first sealed recipe is on its way.
        killWhileHeld("/recipes/");
        cut = objects();
        assertTrue(cut.keySet().stream().anyMatch(k -> k.endsWith("/units/prod/keys")), "committed: " + cut.keySet());
        assertTrue(cut.keySet().stream().anyMatch(k -> k.endsWith("/units/prod/containers/encrypting")), cut.keySet().toString());
        assertFalse(ByteSearch.filesContaining(bucketDir(), MARKER).isEmpty(), "control: plaintext is left to delete");
        assertRefusedAtStart();

        Run finished = encryptUnit();
        assertEquals(0, finished.exit(), finished.toString());
        assertTrue(finished.stdout().contains("unit prod encrypted under key "), finished.toString());
        assertSealed();
        assertServed(backups);
    }

    /** Three backups of a plaintext unit, through a store process without a key; the marker is in the bucket's objects. */
    private Map<String, byte[]> backUpPlaintext() throws Exception {
        writeConfig("store", null);
        Map<String, byte[]> backups = new TreeMap<>();
        try (StoreProcess store = StoreProcess.start(home, List.of("--port", "0", "--metrics-port", "-1"))) {
            port = store.port();
            for (int i = 0; i < STAMPS.length; i++) {
                byte[] data = marked(i + 1, 300_000 + 50_000 * i);
                plugin.run(new ByteArrayInputStream(data), "backup_data", pluginConfig().toString(), path(STAMPS[i])).assertSucceeded();
                backups.put(STAMPS[i], data);
            }
        }
        assertFalse(ByteSearch.filesContaining(bucketDir(), MARKER).isEmpty(), "control: a plaintext unit's objects hold the marker");
        recipes = objects().keySet().stream().filter(k -> k.contains("/units/prod/recipes/")).count();
        assertTrue(recipes >= STAMPS.length, objects().keySet().toString());
        return backups;
    }

    private void killWhileHeld(String keyPart) throws Exception {
        int heldBefore = proxy.held(); // a count over the proxy's life
        proxy.hold(keyPart);
        Process p = encryptUnitProcess(dir.resolve("killed-" + keyPart.replaceAll("[^a-z]", "") + ".out"));
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (proxy.held() == heldBefore && p.isAlive()) {
                assertTrue(System.nanoTime() < deadline, "no write of " + keyPart + " reached the proxy");
                Thread.sleep(20);
            }
            assertTrue(p.isAlive(), "the run ended before its write of " + keyPart);
        } finally {
            p.destroyForcibly();
            p.waitFor();
            proxy.release(); // the held write lands after the kill, as one in flight may
        }
    }

    private void assertRefusedAtStart() throws Exception {
        Path err = dir.resolve("serve-" + System.nanoTime() + ".err");
        ProcessBuilder pb = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), "serve", "--port", "0", "--metrics-port", "-1")
                .redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD);
        environment(pb);
        Process p = pb.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "the store did not stop by itself");
        String log = Files.readString(err);
        assertEquals(2, p.exitValue(), log);
        // The start logs what it does; what it says to its operator is one line.
        List<String> said = log.lines().filter(l -> l.startsWith("gpdedup-store: ")).toList();
        assertEquals(List.of("gpdedup-store: unit prod: a conversion to encrypted did not finish; run gpdedup-store encrypt-unit prod again"),
                said, log);
        assertFalse(log.contains("Exception"), log);
    }

    /** No object of the bucket holds the marker, each recipe is sealed, and nothing of the conversion is left. */
    private void assertSealed() throws IOException {
        assertEquals(List.of(), ByteSearch.filesContaining(bucketDir(), MARKER));
        Map<String, String> now = objects();
        int sealed = 0;
        for (String k : now.keySet()) {
            if (k.contains("/units/prod/recipes/")) {
                sealed++;
                byte[] head = Arrays.copyOf(Files.readAllBytes(bucketDir().resolve(k)), 8);
                assertEquals("GPDSEAL1", new String(head, StandardCharsets.US_ASCII), k);
            }
        }
        assertEquals(recipes, sealed, now.keySet().toString());
        assertFalse(now.keySet().stream().anyMatch(k -> k.endsWith("/encrypting") || k.endsWith(".snap")), now.keySet().toString());
    }

    /** The store started with the key serves every backup byte-exact. */
    private void assertServed(Map<String, byte[]> backups) throws Exception {
        try (StoreProcess store = StoreProcess.start(home, List.of("--port", "0", "--metrics-port", "-1"))) {
            port = store.port();
            for (Map.Entry<String, byte[]> b : backups.entrySet()) {
                assertArrayEquals(b.getValue(), restore(b.getKey()), b.getKey());
            }
        }
        assertEquals(List.of(), ByteSearch.filesContaining(bucketDir(), MARKER), "nor after serving");
    }

    private byte[] restore(String stamp) {
        return plugin.run("restore_data", pluginConfig().toString(), path(stamp)).assertSucceeded().stdout();
    }

    private Path newKey() throws Exception {
        Path key = dir.resolve("kek-" + System.nanoTime());
        ProcessBuilder pb = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), "new-key", key.toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD);
        assertEquals(0, pb.start().waitFor());
        return key;
    }

    /** The store's config, at the bucket through the fault proxy; {@code dataDir} names the store (another one: another data directory). */
    private void writeConfig(String dataDir, Path key) throws IOException {
        Files.createDirectories(home.resolve(".gpdedup"));
        Files.writeString(home.resolve(".gpdedup").resolve("store.yaml"), "listen-address: 127.0.0.1\ndata-dir: " + dataDir + "\n"
                + (key != null ? "encryption:\n  key-file: " + key + "\n" : "")
                + "storage:\n  type: s3\n  endpoint: " + proxy.endpoint() + "\n  region: " + S3Server.REGION + "\n  bucket: " + bucket
                + "\n  prefix: site1/\n  path-style: true\n  cache-dir: " + dir.resolve(dataDir + "-cache") + "\n"
                + "units:\n  prod:\n    users:\n      backup: " + PasswordHash.create(PASSWORD.toCharArray(), 1_000).encoded() + "\n");
    }

    private Path pluginConfig() {
        Path file = dir.resolve("plugin-" + port + ".yaml");
        try {
            Files.writeString(file, "executablepath: " + Dist.executable(DedupFixture.EXECUTABLE) + "\noptions:\n  hostname: 127.0.0.1\n"
                    + "  port: \"" + port + "\"\n  username: backup\n  password: " + PASSWORD + "\n  storage_unit: prod\n"
                    + "  directory: cluster1\n  log_directory: " + dir.resolve("logs") + "\n");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return file;
    }

    private static String path(String stamp) {
        return "/data/gpseg0/backups/" + stamp.substring(0, 8) + "/" + stamp + "/gpbackup_0_" + stamp + "_1";
    }

    /** Random bytes with the marker every 10,000 bytes. */
    private static byte[] marked(long seed, int length) {
        byte[] b = SeededBytes.array(seed, length);
        for (int at = 100; at + MARKER.length < length; at += 10_000) {
            System.arraycopy(MARKER, 0, b, at, MARKER.length);
        }
        return b;
    }

    record Run(int exit, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit " + exit + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    private Run encryptUnit() throws Exception {
        Path out = dir.resolve("encrypt-" + System.nanoTime() + ".out");
        Process p = encryptUnitProcess(out);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "encrypt-unit did not finish");
        return new Run(p.exitValue(), Files.readString(out), Files.readString(Path.of(out + ".err")));
    }

    private Process encryptUnitProcess(Path out) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), "encrypt-unit", "prod")
                .redirectOutput(out.toFile()).redirectError(Path.of(out + ".err").toFile());
        environment(pb);
        return pb.start();
    }

    private void environment(ProcessBuilder pb) {
        pb.environment().put("HOME", home.toString());
        pb.environment().put("AWS_ACCESS_KEY_ID", S3Server.IDENTITY);
        pb.environment().put("AWS_SECRET_ACCESS_KEY", S3Server.CREDENTIAL);
        String settle = System.getProperty("gpdedup.s3.lease-settle-millis");
        if (settle != null) {
            pb.environment().put("GPDEDUP_JAVA_OPTS", "-Dgpdedup.s3.lease-settle-millis=" + settle);
        }
    }

    private static void assertOneLine(Run r, int exit, String start) {
        assertEquals(exit, r.exit(), r.toString());
        List<String> lines = r.stderr().strip().lines().filter(l -> !l.isBlank()).toList();
        assertEquals(1, lines.size(), r.toString());
        assertTrue(lines.get(0).startsWith(start), r.toString());
        assertFalse(r.stderr().contains("Exception"), r.toString());
    }

    private Path bucketDir() {
        return S3Server.shared().bucketDirectory(bucket);
    }

    /** Every object of the bucket (S3Proxy's filesystem backend keeps each as a file) by key, with the SHA-256 of its bytes. */
    private Map<String, String> objects() throws IOException {
        Map<String, String> out = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(bucketDir())) {
            for (Path p : walk.filter(Files::isRegularFile).toList()) {
                out.put(bucketDir().relativize(p).toString(), HexFormat.of().formatHex(sha256(Files.readAllBytes(p))));
            }
        }
        return out;
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Map<String, String> withoutLease(Map<String, String> objects) {
        Map<String, String> out = new TreeMap<>(objects);
        out.keySet().removeIf(k -> k.endsWith("/lease"));
        assertFalse(out.isEmpty());
        return out;
    }
}
