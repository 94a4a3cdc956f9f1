package io.gpdedup.store.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.config.ConfigLoader;
import io.gpdedup.store.config.StoreConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The config keys of TLS and capacity: defaults, relative paths, and the combinations refused. */
class TlsConfigTest {
    @TempDir
    Path dir;

    private StoreConfig load(String extra) throws IOException {
        Path file = dir.resolve("store.yaml");
        Files.writeString(file, extra + "units:\n  u:\n    users:\n      a: " + PasswordHash.create("x".toCharArray(), 1_000).encoded() + "\n");
        return ConfigLoader.load(file);
    }

    @Test
    void noTlsKeysMeansPlainTcp() throws IOException {
        StoreConfig c = load("");
        assertNull(c.tls());
        assertEquals(0, c.unitCapacityBytes());
    }

    @Test
    void certAndKeyMeanTlsRequiredUnlessSaidOtherwise() throws IOException {
        StoreConfig c = load("tls-cert: tls/cert.pem\ntls-key: tls/key.pem\nunit-capacity-bytes: 1099511627776\n");
        assertEquals(dir.resolve("tls/cert.pem"), c.tls().certFile());
        assertEquals(dir.resolve("tls/key.pem"), c.tls().keyFile());
        assertTrue(c.tls().required());
        assertEquals(1L << 40, c.unitCapacityBytes());
        assertTrue(!load("tls-cert: c.pem\ntls-key: k.pem\ntls-required: false\n").tls().required());
    }

    @Test
    void halfConfiguredTlsIsRefusedWithTheKeyNamed() {
        var e = assertThrows(ConfigLoader.ConfigException.class, () -> load("tls-cert: c.pem\n"));
        assertTrue(e.getMessage().contains("tls-key"), e.getMessage());
        e = assertThrows(ConfigLoader.ConfigException.class, () -> load("tls-required: true\n"));
        assertTrue(e.getMessage().contains("tls-cert"), e.getMessage());
        e = assertThrows(ConfigLoader.ConfigException.class, () -> load("tls-required: maybe\ntls-cert: c\ntls-key: k\n"));
        assertTrue(e.getMessage().contains("tls-required"), e.getMessage());
        e = assertThrows(ConfigLoader.ConfigException.class, () -> load("unit-capacity-bytes: -1\n"));
        assertTrue(e.getMessage().contains("unit-capacity-bytes"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"0.0.0.0", "'::'", "10.1.2.3", "'2001:db8::1'"})
    void beyondLoopbackWithoutTlsIsRefusedUnlessPlainTextIsAccepted(String address) throws IOException {
        ConfigLoader.ConfigException e = assertThrows(ConfigLoader.ConfigException.class, () -> load("listen-address: " + address + "\n"));
        assertTrue(e.getMessage().contains("is beyond loopback and TLS is off") && e.getMessage().contains("tls-cert and tls-key")
                && e.getMessage().contains("tls-required: false"), e.getMessage());
        assertNull(load("listen-address: " + address + "\ntls-required: false\n").tls());
        assertTrue(load("listen-address: " + address + "\ntls-cert: c.pem\ntls-key: k.pem\n").tls().required());
    }

    @ParameterizedTest
    @ValueSource(strings = {"127.0.0.1", "127.0.0.2", "'::1'", "localhost"})
    void loopbackWithoutTlsNeedsNoOptOut(String address) throws IOException {
        assertNull(load("listen-address: " + address + "\n").tls());
    }
}
