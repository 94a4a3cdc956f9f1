package io.gpdedup.store.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.engine.PutVerification;
import io.gpdedup.store.replication.ReplicationSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConfigLoaderTest {
    private static final String HASH = PasswordHash.create("pw".toCharArray(), 1_000).encoded();
    private static final Path BASE = Path.of("/etc/gpdedup");

    @Test
    void everyKeyIsRead() {
        StoreConfig c = ConfigLoader.parse("""
                listen-address: 0.0.0.0
                tls-required: false
                port: 9000
                data-dir: /srv/store
                metrics-port: 9001
                idle-timeout-seconds: 30
                max-frame-bytes: 1048576
                max-batch: 1000
                engine-threads: 3
                shutdown-grace-seconds: 5
                units:
                  prod:
                    users:
                      backup: %s
                      admin: %s
                  test:
                    users:
                      tester: %s
                """.formatted(HASH, HASH, HASH), "test.yaml", BASE);
        assertEquals("0.0.0.0", c.listenAddress());
        assertEquals(9000, c.port());
        assertEquals(Path.of("/srv/store"), c.dataDir());
        assertEquals(9001, c.metricsPort());
        assertEquals(Duration.ofSeconds(30), c.idleTimeout());
        assertEquals(1048576, c.maxFrameBytes());
        assertEquals(1000, c.maxBatch());
        assertEquals(3, c.engineThreads());
        assertEquals(Duration.ofSeconds(5), c.shutdownGrace());
        assertEquals(2, c.units().get("prod").size());
        assertTrue(c.units().get("test").get("tester").matches("pw".toCharArray()));
        assertFalse(c.toString().contains(HASH.substring(20)), "toString shows no hash");
    }

    @Test
    void missingKeysTakeTheDefaultsAndRelativePathsTheFilesDirectory() {
        StoreConfig c = ConfigLoader.parse("data-dir: store\nunits: {u: {users: {a: '" + HASH + "'}}}\n", "t.yaml", BASE);
        assertEquals("127.0.0.1", c.listenAddress());
        assertEquals(7411, c.port());
        assertEquals(BASE.resolve("store"), c.dataDir());
        assertEquals(StoreConfig.METRICS_OFF, c.metricsPort());
        assertEquals(16 << 20, c.maxFrameBytes());
    }

    @Test
    void anUnknownKeyIsNamedWithItsLine() {
        ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class, () -> ConfigLoader.parse("""
                port: 7411
                units:
                  u:
                    users:
                      a: %s
                    pasword: x
                """.formatted(HASH), "t.yaml", BASE));
        assertTrue(e.getMessage().contains("line 6"), e.getMessage());
        assertTrue(e.getMessage().contains("'pasword'"), e.getMessage());
        assertTrue(e.getMessage().contains("units.u.pasword"), e.getMessage());
        assertTrue(e.getMessage().contains("users"), "lists the known keys: " + e.getMessage());
    }

    @Test
    void aTopLevelTypoIsNamedWithItsLine() {
        ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class,
                () -> ConfigLoader.parse("port: 1\nlisten_address: 0.0.0.0\nunits: {u: {users: {a: '" + HASH + "'}}}\n", "t.yaml", BASE));
        assertTrue(e.getMessage().contains("line 2") && e.getMessage().contains("listen_address"), e.getMessage());
    }

    @Test
    void recompressionRunsAtLevelNineHalfAMinuteAfterBackupsUnlessTheFileSaysOtherwise() {
        String units = "units: {u: {users: {a: '" + HASH + "'}}}\n";
        assertEquals(RecompressSettings.DEFAULT, ConfigLoader.parse(units, "t.yaml", BASE).recompress());
        assertEquals(new RecompressSettings(0, java.time.Duration.ofSeconds(5), 3), ConfigLoader.parse(
                "recompress-level: 0\nrecompress-after-idle-seconds: 5\nrecompress-threads: 3\n" + units, "t.yaml", BASE).recompress());
        ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class,
                () -> ConfigLoader.parse("recompress-level: 20\n" + units, "t.yaml", BASE));
        assertTrue(e.getMessage().contains("recompress-level must be 1..19 (0 = off)"), e.getMessage());
        e = assertThrows(ConfigLoader.ConfigException.class, () -> ConfigLoader.parse("recompress-threads: 0\n" + units, "t.yaml", BASE));
        assertTrue(e.getMessage().contains("recompress-threads must be 1..256"), e.getMessage());
    }

    @Test
    void verifyOnPutIsSampledUnlessTheFileSaysOtherwise() {
        String units = "units: {u: {users: {a: '" + HASH + "'}}}\n";
        assertEquals(PutVerification.SAMPLE, ConfigLoader.parse(units, "t.yaml", BASE).verifyOnPut());
        assertEquals(PutVerification.ALL, ConfigLoader.parse("verify-on-put: all\n" + units, "t.yaml", BASE).verifyOnPut());
        assertEquals(PutVerification.NONE, ConfigLoader.parse("verify-on-put: none\n" + units, "t.yaml", BASE).verifyOnPut());
        ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class,
                () -> ConfigLoader.parse("verify-on-put: yes\n" + units, "t.yaml", BASE));
        assertTrue(e.getMessage().contains("verify-on-put must be all, sample or none"), e.getMessage());
    }

    @Test
    void replicationRetriesAreReadWithTheirDefaults() {
        String units = "units: {u: {users: {a: '" + HASH + "'}}}\n";
        assertEquals(ReplicationSettings.DEFAULT, ConfigLoader.parse(units, "t.yaml", BASE).replication());
        ReplicationSettings r = ConfigLoader.parse("replication-retry-seconds: 2\nreplication-retry-max-seconds: 30\n"
                + "replication-max-attempts: 5\n" + units, "t.yaml", BASE).replication();
        assertEquals(new ReplicationSettings(Duration.ofSeconds(2), Duration.ofSeconds(30), 5), r);
        ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class,
                () -> ConfigLoader.parse("replication-max-attempts: 0\n" + units, "t.yaml", BASE));
        assertTrue(e.getMessage().contains("replication-max-attempts 0 is below 1"), e.getMessage());
    }

    @Test
    void connectionLimitsAndTheDiskReserveHaveDefaultsAndAreRead() {
        String units = "units: {u: {users: {a: '" + HASH + "'}}}\n";
        StoreConfig defaults = ConfigLoader.parse(units, "t.yaml", BASE);
        assertEquals(ConnectionLimits.defaults(), defaults.connectionLimits());
        assertEquals(java.time.Duration.ofSeconds(5), defaults.connectionLimits().loginTimeout());
        assertEquals(256L << 20, defaults.diskReserveBytes());
        StoreConfig c = ConfigLoader.parse("login-timeout-seconds: 3\nmax-connections: 500\nmax-connections-per-address: 100\n"
                + "max-pending-logins: 32\ndisk-reserve-bytes: 0\n" + units, "t.yaml", BASE);
        assertEquals(new ConnectionLimits(java.time.Duration.ofSeconds(3), 500, 100, 32), c.connectionLimits());
        assertEquals(0, c.diskReserveBytes());
        for (String bad : new String[] {"login-timeout-seconds: 0", "max-connections: -1", "max-pending-logins: 0", "disk-reserve-bytes: -5"}) {
            ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class,
                    () -> ConfigLoader.parse(bad + "\n" + units, "t.yaml", BASE), bad);
            assertTrue(e.getMessage().contains(bad.substring(0, bad.indexOf(':'))), e.getMessage());
        }
    }

    @Test
    void holdingLimitsHaveDefaultsAndAreRead() {
        String units = "units: {u: {users: {a: '" + HASH + "'}}}\n";
        assertEquals(HoldLimits.DEFAULT, ConfigLoader.parse(units, "t.yaml", BASE).connectionLimits().holds());
        HoldLimits h = ConfigLoader.parse("max-leases-per-connection: 8\nmax-leases-per-unit: 16\nmax-leases: 32\n"
                + "max-frame-memory-bytes: 1073741824\nmax-queued-requests: 200\n" + units, "t.yaml", BASE).connectionLimits().holds();
        assertEquals(new HoldLimits(8, 16, 32, 1L << 30, 200), h);
        assertEquals(1L << 30, h.frameMemoryBytes(1L << 40));
        assertEquals(1L << 29, HoldLimits.DEFAULT.frameMemoryBytes(1L << 30), "auto: half the direct memory limit");
        for (String bad : new String[] {"max-leases-per-connection: 0", "max-leases-per-unit: 0", "max-leases: -1",
            "max-frame-memory-bytes: -1", "max-queued-requests: 63"}) {
            ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class,
                    () -> ConfigLoader.parse(bad + "\n" + units, "t.yaml", BASE), bad);
            assertTrue(e.getMessage().contains(bad.substring(0, bad.indexOf(':'))), e.getMessage());
        }
    }

    @Test
    void aRepeatedKeyIsAnError() {
        ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class,
                () -> ConfigLoader.parse("port: 1\nport: 2\nunits: {u: {users: {a: '" + HASH + "'}}}\n", "t.yaml", BASE));
        assertTrue(e.getMessage().contains("port") && e.getMessage().contains("line 2"), e.getMessage());
    }

    @Test
    void aWrongTypeIsNamed() {
        ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class,
                () -> ConfigLoader.parse("port: many\nunits: {u: {users: {a: '" + HASH + "'}}}\n", "t.yaml", BASE));
        assertTrue(e.getMessage().contains("port") && e.getMessage().contains("line 1"), e.getMessage());
    }

    @Test
    void badValuesAreNamed() {
        String units = "units: {u: {users: {a: '" + HASH + "'}}}\n";
        assertTrue(assertThrows(ConfigLoader.ConfigException.class, () -> ConfigLoader.parse("port: 70000\n" + units, "t.yaml", BASE))
                .getMessage().contains("70000"));
        assertTrue(assertThrows(ConfigLoader.ConfigException.class, () -> ConfigLoader.parse("max-frame-bytes: 100\n" + units, "t.yaml", BASE))
                .getMessage().contains("max-frame-bytes"));
        assertTrue(assertThrows(ConfigLoader.ConfigException.class, () -> ConfigLoader.parse("port: 1\n", "t.yaml", BASE))
                .getMessage().contains("units"));
        assertTrue(assertThrows(ConfigLoader.ConfigException.class, () -> ConfigLoader.parse("units: {u: {users: {}}}\n", "t.yaml", BASE))
                .getMessage().contains("units.u.users"));
        ConfigLoader.ConfigException badHash = assertThrows(ConfigLoader.ConfigException.class,
                () -> ConfigLoader.parse("units: {u: {users: {a: plaintext}}}\n", "t.yaml", BASE));
        assertTrue(badHash.getMessage().contains("units.u.users.a") && badHash.getMessage().contains("hash-password"), badHash.getMessage());
        assertFalse(badHash.getMessage().contains("plaintext"), "does not echo what may be a password");
        assertTrue(assertThrows(ConfigLoader.ConfigException.class, () -> ConfigLoader.parse("", "t.yaml", BASE)).getMessage().contains("empty"));
    }

    /** Each a users line an operator could get wrong; the message goes to stderr and the journal. */
    @ParameterizedTest
    @ValueSource(strings = {"a: \"%s", "a: [%s", "a: %s: x", "a: {k: %s}", "a:\n        - %s", "a: !!binary %s",
        "a: %s\n\tb: 1", "a: %s\n   b: 1", "a: %s\n      a: %s"})
    void aMalformedUsersLineNeverEchoesTheHash(String line) {
        String[] parts = HASH.split("\\$");
        String config = "port: 1\nunits:\n  u:\n    users:\n      " + line.replace("%s", HASH) + "\n";
        ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class, () -> ConfigLoader.parse(config, "t.yaml", BASE));
        assertTrue(e.getMessage().contains("line "), "still says where: " + e.getMessage());
        for (String secret : List.of(parts[2], parts[3])) {
            for (int i = 0; i + 8 <= secret.length(); i++) {
                assertFalse(e.getMessage().contains(secret.substring(i, i + 8)), "echoes part of the hash: " + e.getMessage());
            }
        }
    }

    @Test
    void wrongTypesSayWhatWasExpected() {
        String units = "units: {u: {users: {a: '" + HASH + "'}}}\n";
        assertTrue(assertThrows(ConfigLoader.ConfigException.class, () -> ConfigLoader.parse("port: many\n" + units, "t.yaml", BASE))
                .getMessage().endsWith("port: expected a whole number"));
        assertTrue(assertThrows(ConfigLoader.ConfigException.class, () -> ConfigLoader.parse("tls-required: maybe\n" + units, "t.yaml", BASE))
                .getMessage().endsWith("tls-required: expected true or false"));
        String usersIsAHash = assertThrows(ConfigLoader.ConfigException.class,
                () -> ConfigLoader.parse("units: {u: {users: '" + HASH + "'}}\n", "t.yaml", BASE)).getMessage();
        assertTrue(usersIsAHash.endsWith("units.u.users: expected a mapping of keys to values"), usersIsAHash);
        assertFalse(usersIsAHash.contains(HASH.substring(HASH.lastIndexOf('$'))), "the hash in the wrong place is not echoed: " + usersIsAHash);
    }

    @Test
    void theDemoConfigLoadsAndIsWrittenOnce(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("sub").resolve("store.yaml");
        assertTrue(DemoConfig.writeIfAbsent(file));
        String first = Files.readString(file);
        assertFalse(DemoConfig.writeIfAbsent(file));
        assertEquals(first, Files.readString(file), "an existing config is never overwritten");
        StoreConfig c = ConfigLoader.load(file);
        assertEquals("127.0.0.1", c.listenAddress());
        assertEquals(7411, c.port());
        assertEquals(7412, c.metricsPort());
        assertEquals(file.getParent().resolve("store"), c.dataDir());
        assertTrue(c.units().get("gpdedup").get("gpdedup").matches("gpdedup".toCharArray()));
    }

    @Test
    void aMissingFileIsNamed(@TempDir Path dir) {
        assertTrue(assertThrows(ConfigLoader.ConfigException.class, () -> ConfigLoader.load(dir.resolve("nope.yaml")))
                .getMessage().contains("nope.yaml"));
    }
}
