package io.gpdedup.pg;

/**
 * A synthetic table whose rows are pure functions of (table seed, id, revision), written in COPY
 * text: what a mutated table version regenerates instead of storing. Implementations are not
 * thread-safe: one instance per stream.
 */
public interface CopyTable {
    /** No row of any table is longer than this in COPY text. */
    int MAX_ROW_BYTES = 8192;

    /** Writes the row {@code (id, revision)} with its newline at {@code dst[off]}; returns the offset after it. */
    int writeRow(long id, int revision, byte[] dst, int off);

    /** Fails unless {@code dst} has room for the longest row from {@code off}: rows are written without bounds checks of their own. */
    static void checkRoom(byte[] dst, int off) {
        if (dst.length - off < MAX_ROW_BYTES) {
            throw new IllegalArgumentException("need " + MAX_ROW_BYTES + " bytes of room for a row");
        }
    }
}
