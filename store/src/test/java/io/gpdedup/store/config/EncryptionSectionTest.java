package io.gpdedup.store.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.crypt.KeySource;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The config's {@code encryption:} block. */
class EncryptionSectionTest {
    private static final String HASH = PasswordHash.create("pw".toCharArray(), 1_000).encoded();
    private static final Path BASE = Path.of("/etc/gpdedup");

    private static StoreConfig parse(String encryption) {
        return ConfigLoader.parse("data-dir: /srv/store\n" + encryption + "units: {u: {users: {a: '" + HASH + "'}}}\n", "t.yaml", BASE);
    }

    private static String refused(String encryption) {
        return assertThrows(ConfigLoader.ConfigException.class, () -> parse(encryption)).getMessage();
    }

    @Test
    void absentMeansPlaintextAndAKeyFileIsTakenAgainstTheConfigsDirectory() {
        assertNull(parse("").encryption());
        assertEquals(new KeySource(Path.of("/etc/gpdedup/store.key"), null), parse("encryption:\n  key-file: store.key\n").encryption());
        assertEquals(new KeySource(Path.of("/k"), null), parse("encryption: {key-file: /k}\n").encryption());
    }

    @Test
    void aKeyCommandIsAListOrOneLineSplitAtSpacesNeverAShell() {
        assertEquals(List.of("/bin/vault", "read", "$HOME/x"), parse("encryption:\n  key-command: /bin/vault read  $HOME/x\n").encryption().keyCommand());
        assertEquals(List.of("/bin/vault", "read it"), parse("encryption:\n  key-command: [/bin/vault, 'read it']\n").encryption().keyCommand());
    }

    @Test
    void oneOfTheTwoIsNeeded() {
        assertTrue(refused("encryption: {}\n").contains("encryption takes one of key-file and key-command"));
        assertTrue(refused("encryption: {key-file: /k, key-command: cat}\n").contains("one of key-file and key-command"));
        assertTrue(refused("encryption: {key-command: ''}\n").contains("key-command is empty"));
        assertTrue(refused("encryption: {key-command: {a: b}}\n").contains("a command line or a list"));
        assertTrue(refused("encryption: {key-fil: /k}\n").contains("unknown key 'key-fil'"));
    }

    @Test
    void aBucketTakesEncryptionToo() {
        StoreConfig c = parse("encryption: {key-file: /k}\nstorage: {type: s3, bucket: b}\n");
        assertEquals(new KeySource(Path.of("/k"), null), c.encryption());
        assertEquals("b", c.storage().bucket());
    }
}
