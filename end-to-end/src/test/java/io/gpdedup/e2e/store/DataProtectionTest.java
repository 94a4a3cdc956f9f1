package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreBackend;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.testsupport.MotoServer;
import io.gpdedup.testsupport.S3Server;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Backups a stolen plugin config cannot erase or replace: through {@code dist/bin/gpbackup_dedup_plugin}
 * and {@code dist/bin/gpdedup-store}, on local disk and in a bucket, with the unit users of three
 * roles, a unit under a governance retention lock, one under a compliance lock and one without.
 */
@Timeout(300)
class DataProtectionTest {
    private static final String BACKUP = "backup-pw";
    private static final String DBA = "dba-pw";
    private static final String READER = "reader-pw";
    private static final String TS1 = "20261101100000";
    private static final String TS2 = "20261102100000";

    @TempDir
    Path dir;

    private PluginShell plugin;
    private Path home;
    private int port;

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void lockedBackupsOutliveEveryUserButABypassingAdminAndNothingIsReplaced(StoreBackend backend) throws Exception {
        home = dir.resolve("store-home");
        String storage = backend == StoreBackend.S3 ? bucket() : "";
        writeStoreConfig(storage, true);
        Path agentDir = dir.resolve("agent");
        plugin = new PluginShell(Dist.executable(DedupFixture.EXECUTABLE), Files.createDirectories(dir.resolve("cwd")),
                Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
        try (StoreProcess store = StoreProcess.start(home, List.of("--port", "0", "--metrics-port", "-1"))) {
            port = store.port();
            byte[] first = SeededBytes.array(1, 400_000);
            backUp("prod", "backup", BACKUP, TS1, first).assertSucceeded();
            assertArrayEquals(first, restore("prod", "reader", READER, TS1).assertSucceeded().stdout());

            // The same key again, other bytes: refused, the backup unchanged.
            CallResult replaced = backUp("prod", "backup", BACKUP, TS1, "abc".getBytes()).assertFailed();
            assertOneLine(replaced, "locked until");
            assertArrayEquals(first, restore("prod", "reader", READER, TS1).assertSucceeded().stdout());

            assertOneLine(backUp("prod", "reader", READER, TS2, first).assertFailed(), "restore role");
            assertOneLine(plugin.run("delete_backup", config("prod", "backup", BACKUP).toString(), TS1).assertFailed(), "needs the admin role");
            assertOneLine(plugin.run("delete_backup", config("prod", "dba", DBA).toString(), TS1).assertFailed(), "(governance)");

            backUp("prod", "backup", BACKUP, TS2, SeededBytes.array(2, 400_000)).assertSucceeded();
            StoreAdmin dba = admin("prod", "dba", DBA);
            StoreAdmin.Result kept = dba.run("prune", "--directory", "cluster1", "--keep-last", "1");
            assertEquals(0, kept.exit(), kept::toString);
            assertTrue(kept.stdout().contains("keep    " + TS1 + "  (locked until ") && kept.stdout().contains("(governance)"), kept::toString);
            assertEquals(2, dba.run("backups", "--json").json().size());
            JsonNode listed = dba.run("list", "--json").json();
            assertEquals("governance", listed.get(0).get("lock_mode").asText(), listed::toPrettyString);

            StoreAdmin.Result notAdmin = admin("prod", "backup", BACKUP).run("delete-backup", "--directory", "cluster1", TS1,
                    "--bypass-governance");
            assertEquals(1, notAdmin.exit(), notAdmin::toString);
            assertTrue(notAdmin.stderr().contains("needs the admin role"), notAdmin::toString);

            StoreAdmin.Result bypassed = dba.run("prune", "--directory", "cluster1", "--keep-last", "1", "--bypass-governance");
            assertEquals(0, bypassed.exit(), bypassed::toString);
            assertTrue(bypassed.stdout().contains("deleted " + TS1) && bypassed.stdout().contains("bypassed: locked until"), bypassed::toString);
            assertTrue(Files.readString(home.resolve("store.err")).contains("user 'dba' deleted 1 objects (prefix cluster1/backups/20261101/"
                    + TS1 + "/), bypassing the governance retention locks of 1"));
            assertEquals(1, dba.run("backups", "--json").json().size());

            // Compliance: nobody, not even an admin who asks to bypass.
            backUp("vault", "dba", DBA, TS1, first).assertSucceeded();
            StoreAdmin vault = admin("vault", "dba", DBA);
            StoreAdmin.Result refused = vault.run("delete-backup", "--directory", "cluster1", TS1, "--bypass-governance");
            assertEquals(1, refused.exit(), refused::toString);
            assertTrue(refused.stderr().contains("locked until") && refused.stderr().contains("(compliance)"), refused::toString);
            assertEquals(1, refused.stderr().strip().lines().count(), refused::toString);

            // Without a lock: still no silent replacement; the same bytes again are the same backup.
            byte[] lab = SeededBytes.array(3, 300_000);
            backUp("lab", "dba", DBA, TS1, lab).assertSucceeded();
            assertOneLine(backUp("lab", "dba", DBA, TS1, "abc".getBytes()).assertFailed(), "already exists");
            backUp("lab", "dba", DBA, TS1, lab).assertSucceeded();
            assertArrayEquals(lab, restore("lab", "dba", DBA, TS1).assertSucceeded().stdout());
        } finally {
            HostAgents.kill(agentDir);
        }

        // The locks were recorded with the objects: a config without them shortens nothing.
        writeStoreConfig(storage, false);
        try (StoreProcess store = StoreProcess.start(home, List.of("--port", "0", "--metrics-port", "-1"))) {
            port = store.port();
            StoreAdmin.Result refused = admin("vault", "dba", DBA).run("delete-backup", "--directory", "cluster1", TS1, "--bypass-governance");
            assertEquals(1, refused.exit(), refused::toString);
            assertTrue(refused.stderr().contains("(compliance)"), refused::toString);
            StoreAdmin.Result gone = admin("lab", "dba", DBA).run("delete-backup", "--directory", "cluster1", TS1);
            assertEquals(0, gone.exit(), gone::toString);
        } finally {
            HostAgents.kill(dir.resolve("agent"));
        }
    }

    @org.junit.jupiter.api.Test
    void aBadUnitSettingStopsTheStartWithOneLineAndWritesNothing() throws Exception {
        Map<String, String> bad = Map.of(
                "    retention-lock: {mode: governance, days: 0}\n", "units.prod.retention-lock.days: 0 is not a positive number of days",
                "    retention-lock: {mode: legal-hold, days: 3}\n", "units.prod.retention-lock.mode: not a retention lock mode",
                "    roles: {backup: superuser}\n", "units.prod.roles.backup: not a role (admin, backup or restore)",
                "    overwrite: sometimes\n", "units.prod.overwrite: not allow or refuse");
        for (var e : bad.entrySet()) {
            Path config = Files.writeString(dir.resolve("store.yaml"), "data-dir: data\nunits:\n  prod:\n    users:\n      backup: "
                    + hash(BACKUP) + "\n" + e.getKey());
            Path err = dir.resolve("serve.err");
            Process p = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), "serve", "--config", config.toString(), "--port", "0")
                    .redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
            String message = Files.readString(err);
            assertEquals(2, p.exitValue(), message);
            assertEquals(1, message.strip().lines().count(), message);
            assertTrue(message.contains(e.getValue()), message);
            assertFalse(Files.exists(dir.resolve("data")), "a refused config created the data directory");
        }
    }

    private static void assertOneLine(CallResult r, String expected) {
        String err = r.stderr().strip();
        List<String> errors = new ArrayList<>();
        err.lines().filter(l -> !l.isBlank()).forEach(errors::add);
        assertEquals(1, errors.size(), r::toString);
        assertTrue(errors.get(0).contains(expected), r::toString);
        assertFalse(err.contains("Exception"), r::toString);
    }

    /** A bucket with S3 Object Lock (moto's server): the store refuses locked units on one without it. */
    private String bucket() {
        MotoServer server = MotoServer.shared();
        return "storage:\n  type: s3\n  endpoint: " + server.endpoint() + "\n  region: " + S3Server.REGION + "\n  bucket: "
                + server.newBucket("protect", true) + "\n  prefix: site1/\n  path-style: true\n  cache-bytes: 256MiB\n";
    }

    private void writeStoreConfig(String storage, boolean locks) throws Exception {
        Files.createDirectories(home.resolve(".gpdedup"));
        String text = "listen-address: 127.0.0.1\ndata-dir: store\n" + storage + "units:\n"
                + "  prod:\n    users:\n      backup: " + hash(BACKUP) + "\n      dba: " + hash(DBA) + "\n      reader: " + hash(READER) + "\n"
                + "    roles:\n      backup: backup\n      dba: admin\n      reader: restore\n"
                + (locks ? "    retention-lock:\n      mode: governance\n      days: 30\n" : "")
                + "  vault:\n    users:\n      dba: " + hash(DBA) + "\n    roles:\n      dba: admin\n"
                + (locks ? "    retention-lock: {mode: compliance, days: 7}\n" : "")
                + "  lab:\n    users:\n      dba: " + hash(DBA) + "\n";
        Files.writeString(home.resolve(".gpdedup").resolve("store.yaml"), text);
    }

    private static String hash(String password) {
        return PasswordHash.create(password.toCharArray(), 1_000).encoded();
    }

    private Path config(String unit, String user, String password) throws Exception {
        Path file = dir.resolve("plugin-" + unit + "-" + user + ".yaml");
        Files.writeString(file, "executablepath: " + Dist.executable(DedupFixture.EXECUTABLE) + "\noptions:\n  hostname: 127.0.0.1\n  port: \""
                + port + "\"\n  username: " + user + "\n  password: " + password + "\n  storage_unit: " + unit
                + "\n  directory: cluster1\n  log_directory: " + dir.resolve("logs") + "\n");
        return file;
    }

    private StoreAdmin admin(String unit, String user, String password) throws Exception {
        Path passwordFile = Files.writeString(dir.resolve(user + ".pw"), password + "\n");
        return new StoreAdmin(dir, home, List.of("--port", String.valueOf(port), "--unit", unit, "--user", user,
                "--password-file", passwordFile.toString()));
    }

    private CallResult backUp(String unit, String user, String password, String ts, byte[] data) throws Exception {
        return plugin.run(new ByteArrayInputStream(data), "backup_data", config(unit, user, password).toString(), key(ts));
    }

    private CallResult restore(String unit, String user, String password, String ts) throws Exception {
        return plugin.run("restore_data", config(unit, user, password).toString(), key(ts));
    }

    private static String key(String ts) {
        return "/data/gpseg0/backups/" + ts.substring(0, 8) + "/" + ts + "/gpbackup_0_" + ts + "_1";
    }
}
