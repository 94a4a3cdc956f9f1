package io.gpdedup.testsupport;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Path;

/** Damage done to a file on purpose, as a failing disk would: one byte changed in place. */
public final class Damage {
    private Damage() {
    }

    /** Flips the low bit of the byte at {@code offset} of {@code file}. */
    public static void flipByte(Path file, long offset) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            f.seek(offset);
            int b = f.read();
            if (b < 0) {
                throw new IOException(file + " has no byte at " + offset);
            }
            f.seek(offset);
            f.write(b ^ 0x01);
        }
    }
}
