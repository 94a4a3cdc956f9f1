package io.gpdedup.store.container;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpdedup.protocol.model.Fingerprint;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ChunkRecordTest {
    private static ChunkRecord record() {
        byte[] payload = "a chunk's stored payload".getBytes(StandardCharsets.US_ASCII);
        return new ChunkRecord(Fingerprint.compute(payload, 0, payload.length), 2, 4096, payload);
    }

    /** {@code r} written at offset 17 of a larger direct buffer; the record is between position and limit. */
    private static ByteBuffer writtenAt17(ChunkRecord r) {
        ByteBuffer direct = ByteBuffer.allocateDirect(100 + r.encodedLength());
        direct.position(17);
        r.writeTo(direct);
        assertEquals(17 + r.encodedLength(), direct.position());
        return direct.limit(direct.position()).position(17);
    }

    @Test
    void aRecordWrittenIntoADirectBufferHasTheBytesOfItsEncoding() {
        ChunkRecord r = record();
        byte[] written = new byte[r.encodedLength()];
        writtenAt17(r).get(written);
        assertArrayEquals(r.encode(), written);
        assertSameRecord(r, ChunkRecord.decode(written));
    }

    @Test
    void aRecordReadIntoPartOfADirectBufferDecodesFromThere() {
        ChunkRecord r = record();
        ByteBuffer direct = writtenAt17(r);
        assertSameRecord(r, ChunkRecord.decode(direct));
        assertEquals(17, direct.position(), "the buffer is left as it was");
        direct.put(17 + ChunkRecord.HEADER_BYTES + 3, (byte) (direct.get(17 + ChunkRecord.HEADER_BYTES + 3) ^ 1));
        assertThrows(CorruptRecordException.class, () -> ChunkRecord.decode(direct));
        direct.limit(direct.limit() - 1);
        assertThrows(CorruptRecordException.class, () -> ChunkRecord.decode(direct), "one byte short of its stored length");
    }

    private static void assertSameRecord(ChunkRecord expected, ChunkRecord actual) {
        assertEquals(expected.fingerprint(), actual.fingerprint());
        assertEquals(expected.codecId(), actual.codecId());
        assertEquals(expected.rawLength(), actual.rawLength());
        assertArrayEquals(expected.payload(), actual.payload());
    }

    @Test
    void aFlippedByteFailsTheChecksum() {
        byte[] b = record().encode();
        b[ChunkRecord.HEADER_BYTES + 3] ^= 1;
        assertThrows(CorruptRecordException.class, () -> ChunkRecord.decode(b));
    }
}
