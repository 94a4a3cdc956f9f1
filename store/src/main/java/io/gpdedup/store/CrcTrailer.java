package io.gpdedup.store;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The check that ends the store's small files and objects (recipes, container index objects, the
 * catalog checkpoint): their last 4 bytes are the CRC-32C of every byte before them, big-endian.
 */
public final class CrcTrailer {
    /** Bytes the trailer takes. */
    public static final int BYTES = 4;

    private CrcTrailer() {
    }

    /** Puts, at {@code b}'s position, the CRC-32C of the bytes of its array before that position. */
    public static void append(ByteBuffer b) {
        b.putInt(of(b.array(), b.position()));
    }

    /** Whether {@code data} ends with the CRC-32C of the bytes before its last 4. */
    public static boolean matches(byte[] data) {
        return data.length >= BYTES && ByteBuffer.wrap(data).getInt(data.length - BYTES) == of(data, data.length - BYTES);
    }

    private static int of(byte[] data, int length) {
        CRC32C crc = new CRC32C();
        crc.update(data, 0, length);
        return (int) crc.getValue();
    }
}
