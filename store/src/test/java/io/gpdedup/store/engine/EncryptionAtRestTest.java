package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.cli.StoreMain;
import io.gpdedup.store.crypt.Kek;
import io.gpdedup.store.crypt.KeyException;
import io.gpdedup.testsupport.ByteSearch;
import io.gpdedup.testsupport.ConsoleCapture;
import io.gpdedup.testsupport.DiskSnapshot;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Units encrypted at rest on disk: what the files hold, what a wrong key, a tampered byte, a key
 * rotation and a conversion of a plaintext unit do, through the real engine and the store's
 * own commands.
 */
@Timeout(120)
class EncryptionAtRestTest {
    private static final EngineSettings SMALL = EngineSettings.defaults().withContainerSizeBytes(64 << 10);
    private static final byte[] MARKER = "gpdedup-at-rest-marker-5d1f0c".getBytes(StandardCharsets.US_ASCII);

    @TempDir
    Path dir;

    /** Random bytes, which no codec shrinks, with the marker in them every 10,000 bytes. */
    private static byte[] marked(long seed, int length) {
        byte[] b = TestObjects.data(seed, length, false);
        for (int at = 100; at + MARKER.length < length; at += 10_000) {
            System.arraycopy(MARKER, 0, b, at, MARKER.length);
        }
        return b;
    }

    private Path data() {
        return dir.resolve("data");
    }

    @Test
    void encryptedFilesHoldNeitherTheDataNorItsFingerprintsAndThePlaintextControlDoes() throws IOException {
        byte[] object = marked(1, 300_000);
        Recipe plain = writeAndCheck(dir.resolve("plain"), null, object);
        assertTrue(ByteSearch.filesContaining(dir.resolve("plain"), MARKER).size() > 0, "control: a plaintext unit holds the marker");
        assertTrue(ByteSearch.filesContaining(dir.resolve("plain"), plain.chunks().get(0).fingerprint().toBytes()).size() > 0,
                "control: a plaintext unit holds the fingerprints");

        Kek kek = Kek.generate();
        Recipe sealed = writeAndCheck(dir.resolve("sealed"), kek, object);
        assertTrue(Files.exists(dir.resolve("sealed/units/u1/index.snap")), "the index snapshot was written (sealed)");
        assertEquals(0, ByteSearch.filesContaining(dir.resolve("sealed"), MARKER).size());
        assertEquals(0, ByteSearch.filesContaining(dir.resolve("sealed"), sealed.chunks().get(0).fingerprint().toBytes()).size());
        assertEquals(0, ByteSearch.filesContaining(dir.resolve("sealed"), "db/marked".getBytes(StandardCharsets.US_ASCII)).size(),
                "the object name inside the recipe is sealed too");
    }

    /** Backs up {@code object} into unit u1 of {@code dataDir}, restores it before and after a reopen, and verifies. */
    private static Recipe writeAndCheck(Path dataDir, Kek kek, byte[] object) {
        Recipe r;
        try (DedupStoreEngine engine = open(dataDir, kek)) {
            StorageUnit unit = engine.unit("u1");
            r = TestObjects.backup(unit, "db/marked", object, 8192, Codec.LZ4);
            TestObjects.backup(unit, "db/again", object, 8192, Codec.LZ4);
            assertArrayEquals(object, TestObjects.restore(unit, "db/marked"));
        }
        try (DedupStoreEngine engine = open(dataDir, kek)) {
            StorageUnit unit = engine.unit("u1");
            assertArrayEquals(object, TestObjects.restore(unit, "db/again"));
            VerifyReport v = unit.verify();
            assertTrue(v.ok(), v.toString());
        }
        return r;
    }

    private static DedupStoreEngine open(Path dataDir, Kek kek) {
        return kek == null ? DedupStoreEngine.open(dataDir, SMALL) : DedupStoreEngine.open(dataDir, SMALL, kek);
    }

    @Test
    void aTamperedCiphertextByteIsReportedByVerifyAndNeverRestored() throws IOException {
        Kek kek = Kek.generate();
        byte[] object = marked(2, 40_000);
        try (DedupStoreEngine engine = open(data(), kek)) {
            TestObjects.backup(engine.unit("u1"), "a", object, 8192, Codec.NONE);
        }
        Path ctr = data().resolve("units/u1/containers/00000001.ctr");
        try (RandomAccessFile f = new RandomAccessFile(ctr.toFile(), "rw")) {
            long at = 40 + 24 + 37 + 1000; // inside the first record's sealed payload
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x01);
        }
        try (DedupStoreEngine engine = open(data(), kek)) {
            StorageUnit unit = engine.unit("u1");
            VerifyReport v = unit.verify();
            assertFalse(v.ok(), "verify finds the flipped bit");
            assertTrue(v.toString().contains("authenticate"), v.toString());
            StoreException e = assertThrows(StoreException.class, () -> TestObjects.restore(unit, "a"));
            assertTrue(e.getMessage().contains("damaged"), e.getMessage());
        }
    }

    @Test
    void aWrongKeyOrNoKeyOpensNothingAndChangesNothing() throws IOException {
        Kek kek = Kek.generate();
        try (DedupStoreEngine engine = open(data(), kek)) {
            TestObjects.backup(engine.unit("u1"), "a", marked(3, 50_000), 8192, Codec.NONE);
        }
        Map<String, String> before = DiskSnapshot.of(data());
        KeyException wrong = assertThrows(KeyException.class, () -> open(data(), Kek.generate()));
        assertTrue(wrong.getMessage().contains("wrong key") && wrong.getMessage().contains(kek.id()), wrong.getMessage());
        KeyException none = assertThrows(KeyException.class, () -> open(data(), null));
        assertTrue(none.getMessage().contains("is encrypted"), none.getMessage());
        // A lost keys file, or plaintext containers restored into an encrypted unit: refused, never scanned and cut off.
        Path keys = data().resolve("units/u1/keys");
        Files.move(keys, dir.resolve("keys.aside"));
        KeyException lost = assertThrows(KeyException.class, () -> open(data(), kek));
        assertTrue(lost.getMessage().contains("keys file") && lost.getMessage().contains("missing"), lost.getMessage());
        assertThrows(KeyException.class, () -> open(data(), null));
        Files.move(dir.resolve("keys.aside"), keys);
        assertEquals(before, DiskSnapshot.of(data()), "a refused open changes no file");
        try (DedupStoreEngine engine = open(data(), kek)) {
            assertEquals(50_000, TestObjects.restore(engine.unit("u1"), "a").length, "control: the right key opens it");
        }
    }

    @Test
    void rotateKeyRewrapsWithoutRewritingContainersAndOnlyTheNewKeyOpensAfter() throws IOException {
        Path oldKey = dir.resolve("old.key");
        Path newKey = dir.resolve("new.key");
        assertEquals(0, StoreMain.run("new-key", oldKey.toString()));
        assertEquals(0, StoreMain.run("new-key", newKey.toString()));
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(oldKey)));
        ConsoleCapture again = ConsoleCapture.run(() -> StoreMain.run("new-key", oldKey.toString()));
        assertEquals(2, again.exit(), "a key file is never overwritten");
        Kek old = new io.gpdedup.store.crypt.KeySource(oldKey, null).load();
        Kek next = new io.gpdedup.store.crypt.KeySource(newKey, null).load();
        byte[] object = marked(4, 120_000);
        try (DedupStoreEngine engine = open(data(), old)) {
            TestObjects.backup(engine.unit("u1"), "a", object, 8192, Codec.NONE);
            TestObjects.backup(engine.unit("u2"), "b", object, 8192, Codec.NONE);
        }
        Map<String, String> containers = DiskSnapshot.of(data().resolve("units/u1/containers"));
        Path config = config(oldKey);
        ConsoleCapture rotated = ConsoleCapture.run(() -> StoreMain.run("rotate-key", "--config", config.toString(),
                "--new-key-file", newKey.toString()));
        assertEquals(0, rotated.exit(), rotated.err());
        assertTrue(rotated.out().contains("2 unit(s)"), rotated.out());
        assertEquals(containers, DiskSnapshot.of(data().resolve("units/u1/containers")), "no container rewritten");
        assertThrows(KeyException.class, () -> open(data(), old));
        try (DedupStoreEngine engine = open(data(), next)) {
            assertArrayEquals(object, TestObjects.restore(engine.unit("u1"), "a"));
            assertArrayEquals(object, TestObjects.restore(engine.unit("u2"), "b"));
        }
        assertEquals(0, StoreMain.run("rotate-key", "--config", config.toString(), "--new-key-file", newKey.toString()),
                "a second run finds the work done");
    }

    @Test
    void rotationCutOffHalfWayLeavesEveryUnitOpenableAndASecondRunFinishes() throws IOException {
        Kek old = Kek.generate();
        Kek next = Kek.generate();
        try (DedupStoreEngine engine = open(data(), old)) {
            TestObjects.backup(engine.unit("u1"), "a", marked(5, 30_000), 8192, Codec.NONE);
            TestObjects.backup(engine.unit("u2"), "a", marked(6, 30_000), 8192, Codec.NONE);
        }
        // The first phase done for u1 only: its keys wrapped by both keys, u2's by the old one.
        Path u1 = data().resolve("units/u1");
        io.gpdedup.store.crypt.DataKeys.open(u1, "u1", old).addWrapping(u1, next);
        try (DedupStoreEngine engine = open(data(), old)) {
            assertEquals(30_000, TestObjects.restore(engine.unit("u2"), "a").length);
        }
        io.gpdedup.store.crypt.KeyRotation.rotate(data().resolve("units"), old, next);
        assertThrows(KeyException.class, () -> open(data(), old));
        try (DedupStoreEngine engine = open(data(), next)) {
            assertEquals(30_000, TestObjects.restore(engine.unit("u1"), "a").length);
            assertEquals(30_000, TestObjects.restore(engine.unit("u2"), "a").length);
        }
    }

    @Test
    void encryptUnitConvertsAPlaintextUnitThatThenRestoresAndASecondRunLeavesItBe() throws IOException {
        Path key = dir.resolve("store.key");
        assertEquals(0, StoreMain.run("new-key", key.toString()));
        Kek kek = new io.gpdedup.store.crypt.KeySource(key, null).load();
        byte[] object = marked(7, 200_000);
        try (DedupStoreEngine engine = open(data(), null)) {
            TestObjects.backup(engine.unit("u1"), "a", object, 8192, Codec.LZ4);
        }
        try (DedupStoreEngine engine = open(data(), kek)) {
            assertArrayEquals(object, TestObjects.restore(engine.unit("u1"), "a"), "a plaintext unit keeps working with a key configured");
            TestObjects.backup(engine.unit("u1"), "b", object, 8192, Codec.LZ4);
        }
        assertTrue(ByteSearch.filesContaining(data(), MARKER).size() > 0, "control: still plaintext before the conversion");
        Files.writeString(data().resolve("units/u1/keys"), "planted");
        KeyException mixed = assertThrows(KeyException.class, () -> open(data(), kek));
        assertTrue(mixed.getMessage().contains("plaintext containers"), mixed.getMessage());
        Files.delete(data().resolve("units/u1/keys"));
        // A run cut off before its commit: the store refuses the half-converted unit until a run finishes.
        Files.createDirectories(data().resolve("units/u1/containers.sealed"));
        KeyException refused = assertThrows(KeyException.class, () -> open(data(), kek));
        assertTrue(refused.getMessage().contains("encrypt-unit"), refused.getMessage());

        Path config = config(key);
        ConsoleCapture converted = ConsoleCapture.run(() -> StoreMain.run("encrypt-unit", "--config", config.toString(), "u1"));
        assertEquals(0, converted.exit(), converted.err());
        assertEquals(0, ByteSearch.filesContaining(data(), MARKER).size());
        try (DedupStoreEngine engine = open(data(), kek)) {
            StorageUnit unit = engine.unit("u1");
            assertArrayEquals(object, TestObjects.restore(unit, "a"));
            assertArrayEquals(object, TestObjects.restore(unit, "b"));
            assertTrue(unit.verify().ok());
        }
        ConsoleCapture second = ConsoleCapture.run(() -> StoreMain.run("encrypt-unit", "--config", config.toString(), "u1"));
        assertEquals(0, second.exit(), second.err());
        assertTrue(second.out().contains("already encrypted"), second.out());
        ConsoleCapture missing = ConsoleCapture.run(() -> StoreMain.run("encrypt-unit", "--config", config.toString(), "nope"));
        assertEquals(2, missing.exit());
    }

    private Path config(Path keyFile) throws IOException {
        Path cfg = dir.resolve("store.yaml");
        Files.writeString(cfg, "data-dir: " + data() + "\nencryption:\n  key-file: " + keyFile + "\nunits:\n  u1:\n    users:\n      x: "
                + PasswordHash.create("not-used".toCharArray(), 1_000).encoded() + "\n");
        return cfg;
    }

}
