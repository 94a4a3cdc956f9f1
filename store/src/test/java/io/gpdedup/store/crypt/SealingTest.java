package io.gpdedup.store.crypt;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.CorruptRecordException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The sealed forms on their own: key text, data keys, records and blobs, intact and damaged. */
class SealingTest {
    @TempDir
    Path dir;

    private DataKeys keys(String unit) throws IOException {
        Path u = Files.createDirectories(dir.resolve(unit));
        return DataKeys.create(u, unit, Kek.generate());
    }

    @Test
    void aKeyTextRoundTripsAndACutOrForeignOneIsRefusedNamingTheSetting() {
        Kek k = Kek.generate();
        assertEquals(k.id(), Kek.parse(k.toText(), "s").id());
        assertNotEquals(k.id(), Kek.generate().id());
        String text = k.toText();
        for (String bad : List.of("", text.substring(0, text.length() - 10), "gpdedup-key v2\n" + text.split("\n")[1], "hello\nworld\n",
                text + "extra\n")) {
            KeyException e = assertThrows(KeyException.class, () -> Kek.parse(bad, "encryption.key-file /k"));
            assertTrue(e.getMessage().startsWith("encryption.key-file /k: "), e.getMessage());
            assertTrue(!e.getMessage().contains(text.split("\n")[1]), "never quotes the key");
        }
    }

    @Test
    void aKeySourceReportsAMissingUnreadableOrShortFileAndACommandsFailureInOneLine() throws IOException {
        KeyException missing = assertThrows(KeyException.class, () -> new KeySource(dir.resolve("absent"), null).load());
        assertTrue(missing.getMessage().contains("encryption.key-file") && missing.getMessage().contains("no such file"), missing.getMessage());
        Path shortFile = Files.writeString(dir.resolve("short"), "gpdedup-key v1\nAAAA\n");
        KeyException cut = assertThrows(KeyException.class, () -> new KeySource(shortFile, null).load());
        assertTrue(cut.getMessage().contains("not 32 bytes"), cut.getMessage());
        KeyException directory = assertThrows(KeyException.class, () -> new KeySource(dir, null).load());
        assertTrue(directory.getMessage().contains("cannot read"), directory.getMessage());
        Kek k = Kek.generate();
        Path good = Files.writeString(dir.resolve("good"), k.toText());
        assertEquals(k.id(), new KeySource(null, List.of("cat", good.toString())).load().id(), "a command's output is the key");
        KeyException failed = assertThrows(KeyException.class, () -> new KeySource(null, List.of("false")).load());
        assertTrue(failed.getMessage().contains("exited with status 1"), failed.getMessage());
        KeyException absent = assertThrows(KeyException.class, () -> new KeySource(null, List.of(dir.resolve("no-such").toString())).load());
        assertTrue(absent.getMessage().startsWith("encryption.key-command"), absent.getMessage());
    }

    @Test
    void aSealedRecordRoundTripsAndEveryFlippedByteIsCaught() throws IOException {
        SealedRecords records = keys("u1").records();
        byte[] payload = "some chunk payload, not compressed".getBytes(StandardCharsets.US_ASCII);
        ChunkRecord rec = new ChunkRecord(Fingerprint.compute(payload, 0, payload.length), 1, 99, payload);
        byte[] bytes = records.encode(rec);
        assertEquals(SealedRecords.OVERHEAD + payload.length, bytes.length);
        assertEquals(bytes.length, records.lengthFromHeader(Arrays.copyOf(bytes, SealedRecords.HEADER_BYTES)));
        ChunkRecord back = records.decode(ByteBuffer.wrap(bytes));
        assertEquals(rec.fingerprint(), back.fingerprint());
        assertEquals(1, back.codecId());
        assertEquals(99, back.rawLength());
        assertArrayEquals(payload, back.payload());
        for (int i = 0; i < bytes.length; i++) {
            byte[] bad = bytes.clone();
            bad[i] ^= 0x01;
            assertThrows(CorruptRecordException.class, () -> records.decode(ByteBuffer.wrap(bad)), "flipped byte " + i);
        }
        assertThrows(CorruptRecordException.class, () -> keys("u2").records().decode(ByteBuffer.wrap(bytes)),
                "another unit's key does not open it");
        assertThrows(CorruptRecordException.class, () -> records.decode(ByteBuffer.wrap(rec.encode())), "a plaintext record is refused");
    }

    @Test
    void aSealedBlobRoundTripsAcrossSegmentsAndIsCaughtCutSwappedOrMoved() throws IOException {
        BlobSeal seal = keys("u1").blobs();
        for (int size : new int[] {0, 1, BlobSeal.SEGMENT, BlobSeal.SEGMENT + 1, 2 * BlobSeal.SEGMENT + 5}) {
            byte[] plain = new byte[size];
            new Random(size).nextBytes(plain);
            byte[] sealed = seal.seal(plain, "recipe a");
            assertArrayEquals(plain, seal.open(sealed, "recipe a"), "size " + size);
            assertTrue(sealed.length <= size + BlobSeal.overhead(size));
            assertThrows(SealException.class, () -> seal.open(sealed, "recipe b"), "bound to its name");
            assertThrows(SealException.class, () -> seal.open(Arrays.copyOf(sealed, sealed.length - 1), "recipe a"));
        }
        byte[] plain = new byte[2 * BlobSeal.SEGMENT + 5];
        byte[] sealed = seal.seal(plain, "index snapshot");
        // Cut after the first segment (whole segments dropped from the end).
        int first = BlobSeal.HEADER_BYTES + 4 + BlobSeal.SEGMENT + 16;
        assertThrows(SealException.class, () -> seal.open(Arrays.copyOf(sealed, first), "index snapshot"));
        for (int at : new int[] {0, 9, 13, first - 1, sealed.length - 1}) {
            byte[] bad = sealed.clone();
            bad[at] ^= 0x40;
            assertThrows(SealException.class, () -> seal.open(bad, "index snapshot"), "flipped byte " + at);
        }
    }

    @Test
    void dataKeysOpenWithTheirKeyOnlyAndAKeysFileCopiedToAnotherUnitDoesNot() throws IOException {
        Kek kek = Kek.generate();
        Path u1 = Files.createDirectories(dir.resolve("u1"));
        DataKeys.create(u1, "u1", kek);
        DataKeys.open(u1, "u1", kek);
        KeyException wrong = assertThrows(KeyException.class, () -> DataKeys.open(u1, "u1", Kek.generate()));
        assertTrue(wrong.getMessage().contains("wrong key"), wrong.getMessage());
        Path u2 = Files.createDirectories(dir.resolve("u2"));
        Files.writeString(u2.resolve(DataKeys.FILE), Files.readString(u1.resolve(DataKeys.FILE)).replace("unit u1", "unit u2"));
        KeyException moved = assertThrows(KeyException.class, () -> DataKeys.open(u2, "u2", kek));
        assertTrue(moved.getMessage().contains("damaged"), moved.getMessage());
    }
}
