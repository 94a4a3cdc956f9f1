package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.ClientTls;
import io.gpdedup.client.StoreClient;
import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.tls.SelfSignedCertificate;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS through the real executables: {@code dist/bin/gpdedup-store} with {@code tls-cert},
 * {@code tls-key} and {@code tls-required: true} (certificate made with the JDK's keytool), and
 * {@code dist/bin/gpbackup_dedup_plugin} (native launcher, host agent) with {@code tls: "on"} and
 * {@code tls_ca_file}. A plugin without TLS, or one that does not trust the certificate, fails
 * with a message saying why, a non-zero exit and nothing on stdout, and nothing of its backup is
 * stored.
 */
@Timeout(300)
class TlsExecutablesTest {
    private static final String PASSWORD = "tls-test-password";
    private static final String BASE = "/data/gpseg0/backups/20261123/20261123130000/gpbackup_0_20261123130000_";

    @TempDir
    Path dir;
    private SelfSignedCertificate cert;
    private StoreProcess store;
    private PluginShell plugin;
    private Path agentDir;

    @BeforeEach
    void start() throws Exception {
        cert = SelfSignedCertificate.generate(dir.resolve("tls"));
        Path home = dir.resolve("store-home");
        Files.createDirectories(home.resolve(".gpdedup"));
        Files.writeString(home.resolve(".gpdedup").resolve("store.yaml"), "data-dir: data\ntls-cert: " + cert.certFile() + "\ntls-key: "
                + cert.keyFile() + "\ntls-required: true\nunits:\n  prod:\n    users:\n      backup: "
                + PasswordHash.create(PASSWORD.toCharArray(), 1_000).encoded() + "\n");
        store = StoreProcess.start(home);
        agentDir = dir.resolve("agent");
        plugin = new PluginShell(Dist.executable("gpbackup_dedup_plugin"), Files.createDirectories(dir.resolve("cwd")),
                Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
    }

    @AfterEach
    void stop() throws Exception {
        try {
            store.close();
        } finally {
            HostAgents.kill(agentDir);
        }
    }

    private Path config(String name, String tlsOptions) throws IOException {
        return Files.writeString(dir.resolve(name + ".yaml"), "executablepath: " + Dist.executable("gpbackup_dedup_plugin") + "\noptions:\n"
                + "  hostname: 127.0.0.1\n  port: \"" + store.port() + "\"\n  username: backup\n  password: " + PASSWORD + "\n"
                + "  storage_unit: prod\n  directory: cluster1\n  log_directory: " + dir.resolve("logs") + "\n" + tlsOptions);
    }

    @Test
    void tlsPluginBacksUpAndRestoresAndOthersAreRefused() throws Exception {
        Path tls = config("tls", "  tls: \"on\"\n  tls_ca_file: " + cert.certFile() + "\n");
        byte[] data = SeededBytes.array(11, 3_000_000);
        plugin.run(new ByteArrayInputStream(data), "backup_data", tls.toString(), BASE + "1").assertSucceeded();
        CallResult restored = plugin.run("restore_data", tls.toString(), BASE + "1").assertSucceeded();
        assertArrayEquals(data, restored.stdout(), "restore over TLS");

        CallResult plain = plugin.run(new ByteArrayInputStream(data), "backup_data", config("plain", "").toString(), BASE + "2").assertFailed();
        assertTrue(plain.stderr().contains("this gpdedup-store requires TLS"), plain.toString());
        // Trusting only the JDK's CAs: the self-signed certificate must not pass.
        CallResult untrusted = plugin.run(new ByteArrayInputStream(data), "backup_data", config("untrusted", "  tls: \"on\"\n").toString(), BASE + "3")
                .assertFailed();
        assertTrue(untrusted.stderr().contains("TLS handshake with gpdedup-store at 127.0.0.1:" + store.port() + " failed"), untrusted.toString());

        plugin.run("restore_data", tls.toString(), BASE + "2").assertFailed();
        plugin.run("restore_data", tls.toString(), BASE + "3").assertFailed();
        ClientSettings admin = ClientSettings.of("127.0.0.1", store.port(), "prod", "backup", PASSWORD).withTls(ClientTls.trusting(cert.certFile()));
        try (StoreClient client = StoreClient.connect(admin)) {
            List<ObjectInfo> objects = client.list("cluster1/");
            assertEquals(List.of("cluster1/backups/20261123/20261123130000/gpbackup_0_20261123130000_1"),
                    objects.stream().map(ObjectInfo::name).toList(), "only the TLS backup is stored");
            assertEquals(data.length, objects.get(0).length());
        }
    }

    @Test
    void theAdminCommandsSpeakTlsWhenAsked() throws Exception {
        Path passwordFile = Files.writeString(dir.resolve("admin.pw"), PASSWORD + "\n");
        List<String> login = List.of("--port", String.valueOf(store.port()), "--unit", "prod", "--user", "backup",
                "--password-file", passwordFile.toString());
        String[] ok = admin(login, "--tls", "--tls-ca-file", cert.certFile().toString());
        assertEquals("0", ok[0], ok[2]);
        assertTrue(ok[1].contains("objects:"), ok[1]);
        String[] plain = admin(login);
        assertEquals("1", plain[0], plain[2]);
        assertTrue(plain[2].contains("requires TLS"), plain[2]);
        String[] stray = admin(login, "--tls-ca-file", cert.certFile().toString());
        assertEquals("2", stray[0], stray[2]);
        assertEquals("gpdedup-store: --tls-ca-file goes with --tls", stray[2].strip());
    }

    /** Exit status, stdout and stderr of {@code gpdedup-store stat} with these options. */
    private String[] admin(List<String> login, String... options) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of(Dist.executable("gpdedup-store").toString(), "stat"));
        argv.addAll(login);
        argv.addAll(List.of(options));
        Path out = Files.createTempFile(dir, "stat", ".out");
        Path err = Files.createTempFile(dir, "stat", ".err");
        ProcessBuilder pb = new ProcessBuilder(argv).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("HOME", dir.toString());
        Process p = pb.start();
        assertTrue(p.waitFor(60, java.util.concurrent.TimeUnit.SECONDS));
        return new String[] {String.valueOf(p.exitValue()), Files.readString(out), Files.readString(err)};
    }
}
