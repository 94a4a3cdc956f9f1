package io.gpdedup.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class CrcTrailerTest {
    @Test
    void theTrailerIsTheCrc32cOfWhatPrecedesItAndAnyFlippedByteIsCaught() {
        ByteBuffer b = ByteBuffer.allocate(20 + CrcTrailer.BYTES);
        b.put("nineteen bytes long".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).put((byte) 7);
        CrcTrailer.append(b);
        byte[] data = b.array();
        CRC32C crc = new CRC32C();
        crc.update(data, 0, 20);
        assertEquals((int) crc.getValue(), ByteBuffer.wrap(data).getInt(20), "big-endian CRC-32C of the first 20 bytes");
        assertTrue(CrcTrailer.matches(data));
        for (int i = 0; i < data.length; i++) {
            byte[] bad = data.clone();
            bad[i] ^= 0x01;
            assertFalse(CrcTrailer.matches(bad), "flipped byte " + i);
        }
    }

    @Test
    void fewerBytesThanATrailerNeverMatch() {
        assertFalse(CrcTrailer.matches(new byte[0]));
        assertFalse(CrcTrailer.matches(new byte[3]));
        assertTrue(CrcTrailer.matches(new byte[4]), "the CRC-32C of nothing is 0");
    }
}
