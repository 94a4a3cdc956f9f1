package io.gpdedup.plugin.api;

import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;

/** An object opened for restore. Opening fails for a missing object before anything is written. */
public interface StoredData extends Closeable {
    long length();

    /** Writes the whole object; a backend must never write bytes it has not verified. */
    void writeTo(OutputStream out) throws IOException;

    /** Writes the given ranges, in order; {@code ranges} are already checked to lie within {@link #length()}. */
    void writeRanges(ByteRanges ranges, OutputStream out) throws IOException;

    @Override
    default void close() throws IOException {
    }
}
