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

    /** A bigint or integer as PostgreSQL prints it. */
    static int writeLong(long v, byte[] dst, int off) {
        if (v < 0) {
            dst[off++] = '-';
            v = -v;
        }
        int digits = 1;
        for (long t = v; t >= 10; t /= 10) {
            digits++;
        }
        for (int i = off + digits - 1; i >= off; i--) {
            dst[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return off + digits;
    }

    /** A numeric with two decimals, as PostgreSQL prints {@code numeric(p,2)}: always both decimals. */
    static int writeCents(long cents, byte[] dst, int off) {
        if (cents < 0) {
            dst[off++] = '-';
            cents = -cents;
        }
        off = writeLong(cents / 100, dst, off);
        dst[off++] = '.';
        dst[off++] = (byte) ('0' + cents / 10 % 10);
        dst[off++] = (byte) ('0' + cents % 10);
        return off;
    }

    /** A date in ISO style ({@code YYYY-MM-DD}), {@code days} after 1970-01-01. */
    static int writeDate(long days, byte[] dst, int off) {
        // Days to civil date (proleptic Gregorian), after H. Hinnant's "chrono-compatible date algorithms".
        long z = days + 719_468;
        long era = Math.floorDiv(z, 146_097);
        long doe = z - era * 146_097;
        long yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        long doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        long mp = (5 * doy + 2) / 153;
        int day = (int) (doy - (153 * mp + 2) / 5 + 1);
        int month = (int) (mp < 10 ? mp + 3 : mp - 9);
        long year = yoe + era * 400 + (month <= 2 ? 1 : 0);
        off = pad(year, 4, dst, off);
        dst[off++] = '-';
        off = pad(month, 2, dst, off);
        dst[off++] = '-';
        return pad(day, 2, dst, off);
    }

    /** {@code v} in exactly {@code width} digits, zeros in front. */
    static int pad(long v, int width, byte[] dst, int off) {
        for (int i = off + width - 1; i >= off; i--) {
            dst[i] = (byte) ('0' + v % 10);
            v /= 10;
        }
        return off + width;
    }
}
