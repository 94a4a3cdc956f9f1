package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.IgnoredSignals;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.testsupport.MotoServer;
import io.gpdedup.testsupport.S3Server;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ObjectLockMode;
import software.amazon.awssdk.services.s3.model.ObjectVersion;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * A unit's retention lock held by the bucket itself (S3 Object Lock on moto's server), through
 * {@code dist/bin/gpdedup-store} and {@code dist/bin/gpbackup_dedup_plugin}: what a locked backup
 * leaves in the bucket, that the store's own credentials cannot delete it, the extension of the
 * containers a later locked backup shares, and garbage collection beside what the bucket holds.
 */
@Timeout(600)
class BucketObjectLockTest {
    private static final String PW = "dba-pw";
    private static final String TS1 = "20261101100000";
    private static final String TS2 = "20261102100000";
    private static final String TS3 = "20261103100000";

    @TempDir
    Path dir;

    private PluginShell plugin;
    private Path home;
    private int port;
    private String bucket;

    @Test
    void aLockedBackupIsHeldByTheBucketAndALaterOneExtendsWhatItShares() throws Exception {
        home = dir.resolve("store-home");
        bucket = MotoServer.shared().newBucket("e2e-lock", true);
        Path agentDir = dir.resolve("agent");
        plugin = new PluginShell(Dist.executable(DedupFixture.EXECUTABLE), Files.createDirectories(dir.resolve("cwd")),
                Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
        byte[] first = SeededBytes.array(11, 600_000);
        Instant firstHeld;
        try (S3Client raw = client()) {
            writeStoreConfig(1);
            try (StoreProcess store = StoreProcess.start(home, List.of("--port", "0", "--metrics-port", "-1"))) {
                port = store.port();
                long before = System.currentTimeMillis();
                backUp("prod", TS1, first).assertSucceeded();
                backUp("lab", TS1, SeededBytes.array(12, 300_000)).assertSucceeded();

                List<String> prod = keys(raw, "site1/units/prod/containers/");
                prod.addAll(keys(raw, "site1/units/prod/recipes/"));
                assertTrue(prod.stream().anyMatch(k -> k.endsWith(".ctr")) && prod.stream().anyMatch(k -> k.endsWith(".idx"))
                        && prod.stream().anyMatch(k -> k.endsWith(".rcp")), prod.toString());
                for (String k : prod) {
                    HeadObjectResponse h = raw.headObject(b -> b.bucket(bucket).key(k));
                    assertEquals(ObjectLockMode.GOVERNANCE, h.objectLockMode(), k);
                    assertFalse(h.objectLockRetainUntilDate().isBefore(Instant.ofEpochMilli(before + TimeUnit.DAYS.toMillis(1))), k);
                }
                // The store's own credentials cannot delete a version of them; the unlocked unit's go.
                for (ObjectVersion v : versions(raw, "site1/units/prod/")) {
                    if (v.key().endsWith(".ctr") || v.key().endsWith(".idx") || v.key().endsWith(".rcp")) {
                        S3Exception e = assertThrows(S3Exception.class,
                                () -> raw.deleteObject(b -> b.bucket(bucket).key(v.key()).versionId(v.versionId())), v.key());
                        assertEquals(403, e.statusCode(), v.key());
                    }
                }
                assertArrayEquals(first, restore("prod", TS1).assertSucceeded().stdout());
                List<String> lab = keys(raw, "site1/units/lab/containers/");
                assertFalse(lab.isEmpty());
                for (String k : lab) {
                    assertNull(raw.headObject(b -> b.bucket(bucket).key(k)).objectLockMode(), k);
                }
                firstHeld = heldUntil(raw, keys(raw, "site1/units/prod/containers/"));
            } finally {
                HostAgents.kill(agentDir);
            }

            // Restarted with a longer lock: the same bytes again share every container, which is held as long before the backup ends.
            writeStoreConfig(3);
            try (StoreProcess store = StoreProcess.start(home, List.of("--port", "0", "--metrics-port", "-1"))) {
                port = store.port();
                List<String> containers = keys(raw, "site1/units/prod/containers/");
                backUp("prod", TS2, first).assertSucceeded();
                assertEquals(containers, keys(raw, "site1/units/prod/containers/"), "deduplicated: no new container");
                Instant second = Instant.MAX;
                for (String k : keys(raw, "site1/units/prod/recipes/")) {
                    Instant until = raw.headObject(b -> b.bucket(bucket).key(k)).objectLockRetainUntilDate();
                    second = until.isAfter(firstHeld) && until.isBefore(second) ? until : second;
                }
                assertTrue(second.isAfter(firstHeld) && second != Instant.MAX, "the control: the new backup's lock ends after " + firstHeld);
                List<String> shared = dataContainers(raw, "prod");
                assertFalse(shared.isEmpty(), containers.toString());
                assertFalse(heldUntil(raw, shared).isBefore(second), "shared containers extended to " + second);

                // Collection (no reconnect grace: it keeps nothing the store started with): the unlocked unit's deleted backup is freed whole.
                List<String> labData = dataContainers(raw, "lab");
                assertFalse(labData.isEmpty());
                StoreAdmin labAdmin = admin("lab");
                assertEquals(0, labAdmin.run("delete-backup", "--directory", "cluster1", TS1).exit());
                StoreAdmin.Result labGc = labAdmin.run("gc");
                assertEquals(0, labGc.exit(), labGc::toString);
                for (ObjectVersion v : versions(raw, "site1/units/lab/containers/")) {
                    assertFalse(labData.contains(v.key()), "every version of its containers deleted: " + v.key());
                }

                // A locked backup an admin deletes early: the bucket keeps its containers, and collection says so without failing.
                backUp("prod", TS3, SeededBytes.array(13, 300_000)).assertSucceeded();
                StoreAdmin prodAdmin = admin("prod");
                StoreAdmin.Result bypass = prodAdmin.run("delete-backup", "--directory", "cluster1", TS3, "--bypass-governance");
                assertEquals(0, bypass.exit(), bypass::toString);
                List<String> held = keys(raw, "site1/units/prod/containers/");
                StoreAdmin.Result prodGc = prodAdmin.run("gc");
                assertEquals(0, prodGc.exit(), prodGc::toString);
                assertEquals(held, keys(raw, "site1/units/prod/containers/"));
                assertTrue(Files.readString(home.resolve("store.err")).contains("containers stay in the bucket, which holds them under retention"));
                assertArrayEquals(first, restore("prod", TS2).assertSucceeded().stdout());
            } finally {
                HostAgents.kill(agentDir);
            }
        }
    }

    /** A reload that would lock a unit on a bucket without Object Lock is refused like such a start, and changes nothing. */
    @Test
    void aReloadThatLocksAUnitOnABucketWithoutObjectLockIsRefused() throws Exception {
        assumeFalse(IgnoredSignals.ignores(ProcessHandle.current().pid(), IgnoredSignals.SIGHUP),
                "SIGHUP is ignored in this process tree (nohup?), so the store would ignore it too");
        home = dir.resolve("store-home");
        bucket = MotoServer.shared().newBucket("e2e-nolock", false);
        Path agentDir = dir.resolve("agent");
        plugin = new PluginShell(Dist.executable(DedupFixture.EXECUTABLE), Files.createDirectories(dir.resolve("cwd")),
                Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
        writeStoreConfig(0);
        try (StoreProcess store = StoreProcess.start(home, List.of("--port", "0", "--metrics-port", "-1")); S3Client raw = client()) {
            port = store.port();
            backUp("prod", TS1, SeededBytes.array(21, 200_000)).assertSucceeded();
            writeStoreConfig(1);
            Process kill = new ProcessBuilder("kill", "-HUP", String.valueOf(store.pid())).start();
            assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -HUP failed");
            String refused = "config reload from " + home.resolve(".gpdedup").resolve("store.yaml") + " failed, keeping the users as they were:"
                    + " units.prod.retention-lock asks for governance locks of 1 days, but bucket " + bucket + " at "
                    + MotoServer.shared().endpoint() + " does not have S3 Object Lock enabled";
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.readString(home.resolve("store.err")).contains(refused)) {
                assertTrue(System.nanoTime() < deadline, () -> "no refusal in the log: " + readQuietly(home.resolve("store.err")));
                Thread.sleep(100);
            }
            // Still unlocked: the next backup's objects carry no retention and go.
            backUp("prod", TS2, SeededBytes.array(22, 200_000)).assertSucceeded();
            for (String k : keys(raw, "site1/units/prod/")) {
                assertNull(raw.headObject(b -> b.bucket(bucket).key(k)).objectLockMode(), k);
            }
            assertEquals(0, admin("prod").run("delete-backup", "--directory", "cluster1", TS2).exit());
        } finally {
            HostAgents.kill(agentDir);
        }
    }

    private static String readQuietly(Path file) {
        try {
            return Files.readString(file);
        } catch (java.io.IOException e) {
            return "(" + e.getMessage() + ")";
        }
    }

    /**
     * The containers (and index objects) holding a unit's backup bytes: not the small one of the
     * plugin's chunking record, which a backup neither shares nor frees.
     */
    private List<String> dataContainers(S3Client raw, String unit) {
        List<String> out = new java.util.ArrayList<>();
        raw.listObjectsV2Paginator(b -> b.bucket(bucket).prefix("site1/units/" + unit + "/containers/")).contents().stream()
                .filter(o -> o.key().endsWith(".ctr") && o.size() > 100_000)
                .forEach(o -> out.addAll(List.of(o.key(), o.key().replace(".ctr", ".idx"))));
        return out;
    }

    private Instant heldUntil(S3Client raw, List<String> keys) {
        Instant min = Instant.MAX;
        for (String k : keys) {
            Instant until = raw.headObject(b -> b.bucket(bucket).key(k)).objectLockRetainUntilDate();
            min = until.isBefore(min) ? until : min;
        }
        return min;
    }

    private List<String> keys(S3Client raw, String prefix) {
        List<String> out = new java.util.ArrayList<>();
        raw.listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)).contents().forEach(o -> out.add(o.key()));
        return out;
    }

    private List<ObjectVersion> versions(S3Client raw, String prefix) {
        return raw.listObjectVersions(b -> b.bucket(bucket).prefix(prefix)).versions();
    }

    /** The store's own credentials (those StoreProcess gives it). */
    private static S3Client client() {
        return S3Client.builder().endpointOverride(MotoServer.shared().endpoint()).region(Region.US_EAST_1).forcePathStyle(true)
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(S3Server.IDENTITY, S3Server.CREDENTIAL)))
                .build();
    }

    /** {@code days}: unit prod's retention lock, none for 0. */
    private void writeStoreConfig(int days) throws Exception {
        Files.createDirectories(home.resolve(".gpdedup"));
        String hash = PasswordHash.create(PW.toCharArray(), 1_000).encoded();
        Files.writeString(home.resolve(".gpdedup").resolve("store.yaml"), "listen-address: 127.0.0.1\ndata-dir: store\nreconnect-grace-seconds: 0\n"
                + "storage:\n  type: s3\n  endpoint: " + MotoServer.shared().endpoint() + "\n  bucket: " + bucket
                + "\n  prefix: site1/\n  path-style: true\n  cache-bytes: 256MiB\n"
                + "units:\n  prod:\n    users:\n      dba: " + hash + "\n    roles:\n      dba: admin\n"
                + (days > 0 ? "    retention-lock: {mode: governance, days: " + days + "}\n" : "")
                + "  lab:\n    users:\n      dba: " + hash + "\n    roles:\n      dba: admin\n");
    }

    private Path config(String unit) throws Exception {
        Path file = dir.resolve("plugin-" + unit + ".yaml");
        Files.writeString(file, "executablepath: " + Dist.executable(DedupFixture.EXECUTABLE) + "\noptions:\n  hostname: 127.0.0.1\n  port: \""
                + port + "\"\n  username: dba\n  password: " + PW + "\n  storage_unit: " + unit
                + "\n  directory: cluster1\n  log_directory: " + dir.resolve("logs") + "\n");
        return file;
    }

    private StoreAdmin admin(String unit) throws Exception {
        Path passwordFile = Files.writeString(dir.resolve("dba.pw"), PW + "\n");
        return new StoreAdmin(dir, home, List.of("--port", String.valueOf(port), "--unit", unit, "--user", "dba",
                "--password-file", passwordFile.toString()));
    }

    private CallResult backUp(String unit, String ts, byte[] data) throws Exception {
        return plugin.run(new ByteArrayInputStream(data), "backup_data", config(unit).toString(), key(ts));
    }

    private CallResult restore(String unit, String ts) throws Exception {
        return plugin.run("restore_data", config(unit).toString(), key(ts));
    }

    private static String key(String ts) {
        return "/data/gpseg0/backups/" + ts.substring(0, 8) + "/" + ts + "/gpbackup_0_" + ts + "_1";
    }
}
