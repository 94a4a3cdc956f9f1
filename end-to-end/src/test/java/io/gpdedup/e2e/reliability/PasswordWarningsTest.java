package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.store.tls.SelfSignedCertificate;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The WARNING lines of {@code dist/bin/gpbackup_dedup_plugin} (through its host agent) about a
 * password others can read, against a real {@code dist/bin/gpdedup-store} listening on every
 * interface with a certificate and {@code tls-required: false}: one per call when the password goes
 * without TLS to an address beyond loopback (this host's own routable address), one per call when
 * the config file holds a plaintext password and group or others can read it. None with TLS, on
 * loopback, for a 0600 config, or for an encrypted password; never on stderr, never the password.
 */
@Timeout(300)
class PasswordWarningsTest {
    private static final String PASSWORD = "warn-test-password-7f3a";
    private static final String CLUSTER_KEY = "cluster-key-91c2";
    private static final String TLS_WARNING = "without TLS";
    private static final String FILE_WARNING = "in plain text and other users can read it";

    @TempDir
    Path dir;
    private String routable;
    private SelfSignedCertificate cert;
    private StoreProcess store;
    private PluginShell plugin;
    private Path agentDir;
    private int keys;

    @BeforeEach
    void start() throws Exception {
        Optional<String> address = routableAddress();
        assumeTrue(address.isPresent(), "this host has no address beyond loopback");
        routable = address.get();
        cert = SelfSignedCertificate.generate(dir.resolve("tls"), "ip:" + routable);
        Path home = dir.resolve("store-home");
        StoreProcess.writeConfig(home, "listen-address: 0.0.0.0\ntls-required: false\ntls-cert: " + cert.certFile() + "\ntls-key: "
                + cert.keyFile() + "\ndata-dir: " + dir.resolve("data") + "\n", PASSWORD, 1_000);
        store = StoreProcess.start(home);
        agentDir = Files.createDirectories(dir.resolve("agent"));
        Files.setPosixFilePermissions(agentDir, PosixFilePermissions.fromString("rwx------"));
        plugin = new PluginShell(Dist.executable("gpbackup_dedup_plugin"), Files.createDirectories(dir.resolve("cwd")),
                Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString(), "GPDEDUP_AGENT", "require"));
    }

    @AfterEach
    void stop() throws Exception {
        try {
            HostAgents.kill(agentDir);
        } finally {
            if (store != null) {
                store.close();
            }
        }
    }

    @Test
    void aPlainTextLoginBeyondLoopbackIsWarnedAboutOncePerCall() throws Exception {
        Path beyond = config("beyond", "rw-------", Map.of("hostname", routable));
        backUpAndRestore(beyond);
        List<String> warnings = logLines("beyond", TLS_WARNING);
        assertEquals(2, warnings.size(), "backup_data and restore_data: " + warnings);
        assertTrue(warnings.get(0).contains("[WARNING]:-the password of user 'backup' goes to gpdedup-store at " + routable + ":" + store.port()
                + " without TLS") && warnings.get(0).contains("tls: \"on\""), warnings.get(0));

        backUpAndRestore(config("loopback", "rw-------", Map.of("hostname", "127.0.0.1")));
        assertEquals(List.of(), logLines("loopback", TLS_WARNING));
        backUpAndRestore(config("tls", "rw-------", Map.of("hostname", routable, "tls", "\"on\"", "tls_ca_file", cert.certFile().toString())));
        assertEquals(List.of(), logLines("tls", TLS_WARNING));
        assertNoPasswordInLogs();
    }

    @Test
    void aPlainTextPasswordInAConfigOthersCanReadIsWarnedAbout() throws Exception {
        for (String mode : List.of("rw-r--r--", "rw-r-----")) {
            Path open = config("open-" + mode.replace('-', '_'), mode, Map.of("hostname", "127.0.0.1"));
            backUpAndRestore(open);
            List<String> warnings = logLines("open-" + mode.replace('-', '_'), FILE_WARNING);
            assertEquals(2, warnings.size(), "one per call: " + warnings);
            assertTrue(warnings.get(0).contains("[WARNING]:-plugin config " + open + " holds option 'password' in plain text and other users can read it ("
                    + mode + ")") && warnings.get(0).contains("password_encryption: \"on\""), warnings.get(0));
        }
        backUpAndRestore(config("private", "rw-------", Map.of("hostname", "127.0.0.1")));
        assertEquals(List.of(), logLines("private", FILE_WARNING));

        Path encryptFile = Files.writeString(dir.resolve(".encrypt"), "gpbackup_dedup_plugin: " + CLUSTER_KEY + "\n");
        String encrypted = plugin.run(new ByteArrayInputStream((PASSWORD + "\n").getBytes(StandardCharsets.UTF_8)), "encrypt_password",
                config("for-encrypting", "rw-------", Map.of("hostname", "127.0.0.1")).toString(), encryptFile.toString()).assertSucceeded()
                .stdoutText().strip();
        // What gpbackup hands the plugin: the copy in /tmp, 0644, with the .encrypt secret added.
        backUpAndRestore(config("encrypted", "rw-r--r--", Map.of("hostname", "127.0.0.1", "password", encrypted, "password_encryption", "\"on\"",
                "gpbackup_dedup_plugin", CLUSTER_KEY)));
        assertEquals(List.of(), logLines("encrypted", FILE_WARNING));
        assertEquals(List.of(), logLines("encrypted", "[WARNING]"));

        // The replication remote's password counts too, whether or not replication is on.
        Map<String, String> remote = new LinkedHashMap<>(Map.of("hostname", "127.0.0.1", "password", encrypted, "password_encryption", "\"on\"",
                "gpbackup_dedup_plugin", CLUSTER_KEY));
        remote.putAll(Map.of("remote_hostname", "127.0.0.1", "remote_username", "dr", "remote_password", "remote-" + PASSWORD,
                "remote_storage_unit", "dr"));
        Path remoteConfig = config("remote", "rw-r--r--", remote);
        backUpAndRestore(remoteConfig);
        List<String> remoteWarnings = logLines("remote", FILE_WARNING);
        assertEquals(2, remoteWarnings.size(), remoteWarnings.toString());
        assertTrue(remoteWarnings.get(0).contains("holds option 'remote_password' in plain text")
                && remoteWarnings.get(0).contains("set remote_password_encryption: \"on\" ("), remoteWarnings.get(0));
        assertNoPasswordInLogs();
    }

    /** A plugin config named {@code name}, logging to its own directory, with {@code mode}; {@code changes} over the defaults. */
    private Path config(String name, String mode, Map<String, String> changes) throws IOException {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("port", "\"" + store.port() + "\"");
        options.put("username", StoreProcess.USER);
        options.put("password", PASSWORD);
        options.put("storage_unit", StoreProcess.UNIT);
        options.put("directory", "cluster1");
        options.put("log_directory", dir.resolve("logs").resolve(name).toString());
        options.putAll(changes);
        StringBuilder yaml = new StringBuilder("executablepath: " + Dist.executable("gpbackup_dedup_plugin") + "\noptions:\n");
        options.forEach((k, v) -> yaml.append("  ").append(k).append(": ").append(v).append('\n'));
        Path file = Files.writeString(dir.resolve(name + ".yaml"), yaml);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(mode));
        return file;
    }

    /** Two calls: backup_data of a new key and its restore_data; both must succeed silently. */
    private void backUpAndRestore(Path config) {
        String key = "/data/gpseg0/backups/20261128/20261128110000/gpbackup_0_20261128110000_" + (16384 + keys++);
        byte[] data = SeededBytes.array(keys, 200_000);
        plugin.run(new ByteArrayInputStream(data), "backup_data", config.toString(), key).assertSucceeded();
        assertArrayEquals(data, plugin.run("restore_data", config.toString(), key).assertSucceeded().stdout());
    }

    private List<String> logLines(String name, String text) throws IOException {
        Path logs = dir.resolve("logs").resolve(name);
        List<String> out = new ArrayList<>();
        try (Stream<Path> files = Files.list(logs)) {
            for (Path f : files.sorted().toList()) {
                Files.readAllLines(f).stream().filter(l -> l.contains(text)).forEach(out::add);
            }
        }
        return out;
    }

    private void assertNoPasswordInLogs() throws IOException {
        try (Stream<Path> files = Files.walk(dir.resolve("logs"))) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertFalse(Files.readString(f).contains(PASSWORD), f.toString());
            }
        }
    }

    /** An IPv4 address of an interface that is up and not loopback, if this host has one. */
    private static Optional<String> routableAddress() throws IOException {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLinkLocalAddress() && !a.isLoopbackAddress()) {
                    return Optional.of(a.getHostAddress());
                }
            }
        }
        return Optional.empty();
    }
}
