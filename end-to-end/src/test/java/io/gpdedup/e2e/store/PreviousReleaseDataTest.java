package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.data.Sha256Sink;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.testsupport.S3Server;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store of this build opens what the previous release wrote: a local data directory (with the
 * demo config that release wrote beside it) and a bucket unit, both holding two backups made by
 * that release's {@code gpbackup_dedup_plugin} (fixtures and how they were made:
 * {@code previous-release/README.md} among the test resources). Every object restores byte-exact
 * through this build's plugin, {@code gpdedup-store verify} finds nothing damaged, and a new backup
 * goes into the old unit and restores.
 */
@Timeout(300)
class PreviousReleaseDataTest {
    private static final String FIXTURES = "previous-release/";
    private static final String NEW_BACKUP = "20261128100000";

    @TempDir
    Path dir;

    @Test
    void aDataDirectoryOfThePreviousReleaseOpensAndRestores() throws Exception {
        Path home = Files.createDirectories(dir.resolve("store-home"));
        untar("local-store.tar.gz", home, 0);
        checkAndBackUp(home);
    }

    @Test
    void aBucketUnitOfThePreviousReleaseOpensAndRestores() throws Exception {
        S3Server s3 = S3Server.shared();
        String bucket = s3.newBucket("previous-release");
        untar("bucket.tar.gz", s3.bucketDirectory(bucket), 1);
        Path home = Files.createDirectories(dir.resolve("store-home"));
        String config = new String(resource("bucket-store.yaml").readAllBytes(), StandardCharsets.UTF_8)
                .replace("@ENDPOINT@", s3.endpoint().toString()).replace("bucket: fixture\n", "bucket: " + bucket + "\n");
        Files.writeString(Files.createDirectories(home.resolve(".gpdedup")).resolve("store.yaml"), config);
        // A new host: no spool nor cache, everything comes from the bucket.
        checkAndBackUp(home);
    }

    private void checkAndBackUp(Path home) throws Exception {
        Map<String, String> expected = expectedSha256();
        Path agentDir = dir.resolve("agent");
        StoreProcess store = StoreProcess.start(home);
        try {
            PluginShell plugin = new PluginShell(Dist.executable(DedupFixture.EXECUTABLE), Files.createDirectories(dir.resolve("cwd")),
                    Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
            Path config = pluginConfig(store);
            for (Map.Entry<String, String> e : expected.entrySet()) {
                CallResult r = plugin.run("restore_data", config.toString(), key(e.getKey())).assertSucceeded();
                assertEquals(e.getValue(), Sha256Sink.of(r.stdout()), "the restored bytes of " + e.getKey());
            }

            Path passwordFile = Files.writeString(dir.resolve("password"), StoreProcess.DEMO_PASSWORD + "\n");
            StoreAdmin admin = new StoreAdmin(dir, home, List.of("--port", String.valueOf(store.port()), "--unit", StoreProcess.DEMO_UNIT,
                    "--user", StoreProcess.DEMO_USER, "--password-file", passwordFile.toString()));
            StoreAdmin.Result verify = admin.run("verify");
            assertEquals(0, verify.exit(), verify::toString);

            // The second old backup's bytes again under a new timestamp: they dedup against what the old release stored.
            String old = expected.keySet().stream().filter(k -> k.endsWith("16384")).reduce((a, b) -> b).orElseThrow();
            byte[] data = plugin.run("restore_data", config.toString(), key(old)).assertSucceeded().stdout();
            String newKey = "/data/gpseg0/backups/" + NEW_BACKUP.substring(0, 8) + "/" + NEW_BACKUP + "/gpbackup_0_" + NEW_BACKUP + "_16384";
            plugin.run(new ByteArrayInputStream(data), "backup_data", config.toString(), newKey).assertSucceeded();
            byte[] back = plugin.run("restore_data", config.toString(), newKey).assertSucceeded().stdout();
            assertEquals(expected.get(old), Sha256Sink.of(back), "the new backup restores");
            StoreAdmin.Result newOne = admin.run("verify", "--backup", NEW_BACKUP);
            assertEquals(0, newOne.exit(), newOne::toString);
        } finally {
            store.close();
            HostAgents.kill(agentDir);
        }
    }

    private Path pluginConfig(StoreProcess store) throws IOException {
        StringBuilder yaml = new StringBuilder("executablepath: " + Dist.executable(DedupFixture.EXECUTABLE) + "\noptions:\n");
        store.demoOptions("cluster1").forEach((k, v) -> yaml.append("  ").append(k).append(": \"").append(v).append("\"\n"));
        yaml.append("  log_directory: ").append(dir.resolve("logs")).append('\n');
        return Files.writeString(dir.resolve("plugin.yaml"), yaml);
    }

    /** The key gpbackup gives {@code backup_data} for an object named {@code cluster1/backups/...}. */
    private static String key(String object) {
        return "/data/gpseg0/" + object.substring("cluster1/".length());
    }

    /** Object name to the SHA-256 of the bytes the fixture's backup of it was given, in the file's order. */
    private static Map<String, String> expectedSha256() throws IOException {
        Map<String, String> sums = new LinkedHashMap<>();
        try (InputStream in = resource("objects.sha256")) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.US_ASCII).split("\n")) {
                String[] f = line.split("  ", 2);
                sums.put(f[1], f[0]);
            }
        }
        assertEquals(4, sums.size(), "objects in the fixture: " + sums);
        return sums;
    }

    private static InputStream resource(String name) throws IOException {
        InputStream in = PreviousReleaseDataTest.class.getResourceAsStream(FIXTURES + name);
        if (in == null) {
            throw new IOException("test resource " + FIXTURES + name + " is missing");
        }
        return in;
    }

    /**
     * Unpacks a fixture archive into {@code into} with tar, dropping {@code strip} leading path
     * components; with the extended attributes, where S3Proxy keeps an object's ETag.
     */
    private void untar(String name, Path into, int strip) throws IOException, InterruptedException {
        Path archive = dir.resolve(name);
        try (InputStream in = resource(name)) {
            Files.copy(in, archive);
        }
        Files.createDirectories(into);
        Process p = new ProcessBuilder("tar", "--xattrs", "--xattrs-include=*", "-xzf", archive.toString(), "-C", into.toString(), "--strip-components=" + strip)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "tar " + name + ": " + out);
    }
}
