package io.gpdedup.pg;

/**
 * PostgreSQL COPY text format, as {@code COPY ... TO} writes it (the format gpbackup streams):
 * columns separated by a tab, rows ended by a newline, NULL as {@code \N}, and inside values a
 * backslash, tab, newline or carriage return written as {@code \\}, {@code \t}, {@code \n},
 * {@code \r}.
 */
final class CopyText {
    static final byte DELIMITER = '\t';
    static final byte ROW_END = '\n';

    private CopyText() {
    }

    /** Writes {@code \N} at {@code dst[off]}; returns the offset after it. */
    static int writeNull(byte[] dst, int off) {
        dst[off] = '\\';
        dst[off + 1] = 'N';
        return off + 2;
    }

    /**
     * Escapes {@code src[srcOff, srcOff+len)} into {@code dst} at {@code dstOff}; returns the offset
     * after it. {@code dst} needs up to {@code 2*len} bytes of room.
     */
    public static int escape(byte[] src, int srcOff, int len, byte[] dst, int dstOff) {
        int d = dstOff;
        for (int i = srcOff; i < srcOff + len; i++) {
            byte b = src[i];
            switch (b) {
                case '\\' -> { dst[d++] = '\\'; dst[d++] = '\\'; }
                case '\t' -> { dst[d++] = '\\'; dst[d++] = 't'; }
                case '\n' -> { dst[d++] = '\\'; dst[d++] = 'n'; }
                case '\r' -> { dst[d++] = '\\'; dst[d++] = 'r'; }
                default -> dst[d++] = b;
            }
        }
        return d;
    }
}
