package io.gpdedup.pg;

import java.nio.charset.StandardCharsets;

/**
 * The rows of a synthetic {@code orders} table ({@link #DDL}) in COPY text, each a pure function
 * of (table seed, id, revision). Revision 0 is the row as inserted; an UPDATE gives revision
 * {@code r+1} a later {@code updated_at} and new {@code amount} and {@code status}, while the long
 * {@code note} stays as it was (batch updates rarely rewrite free text). About 2-3% NULLs per
 * nullable column. Not thread-safe: one instance per stream.
 */
public final class OrdersTable implements CopyTable {
    public static final String DDL = "CREATE TABLE orders (id bigint PRIMARY KEY, updated_at timestamp, "
            + "amount numeric(12,2), status text, note text)";

    /** 2024-01-01 00:00:00 UTC. */
    private static final long EPOCH_2024 = 1_704_067_200L;
    private static final long SECONDS_PER_REVISION = 30L * 86_400;
    private static final long NOTE_STREAM = -1;
    private static final int MAX_NOTE_WORDS = 120;
    private static final byte[][] STATUSES = bytes("new", "pending", "paid", "packed", "shipped", "delivered",
            "returned", "cancelled", "on hold", "disputed");
    private static final byte[] PATH_PREFIX = bytes("C:\\exports\\")[0];
    private static final Vocabulary VOCABULARY = new Vocabulary(1.25);

    private final long seed;
    private final RowRandom random = new RowRandom();
    private final byte[] note = new byte[MAX_NOTE_WORDS * (Vocabulary.MAX_WORD + 2) + 64];

    public OrdersTable(long seed) {
        this.seed = seed;
    }

    @Override
    public int writeRow(long id, int revision, byte[] dst, int off) {
        CopyTable.checkRoom(dst, off);
        int d = CopyText.writeLong(id, dst, off);
        dst[d++] = CopyText.DELIMITER;

        random.reseed(seed, id, revision);
        long seconds = EPOCH_2024 + id * 3 + random.nextInt(3);
        if (revision > 0) {
            seconds += revision * SECONDS_PER_REVISION + random.nextInt(86_400);
        }
        d = writeTimestamp(seconds, random.chance(50) ? 0 : random.nextInt(1_000_000), dst, d);
        dst[d++] = CopyText.DELIMITER;

        if (random.chance(20)) {
            d = CopyText.writeNull(dst, d);
        } else {
            // Mostly small amounts, some large: prices and totals, not uniform noise.
            long cents = random.chance(900) ? random.nextInt(20_000) : random.nextInt(500_000_000);
            d = CopyText.writeCents(random.chance(15) ? -cents : cents, dst, d);
        }
        dst[d++] = CopyText.DELIMITER;

        if (random.chance(25)) {
            d = CopyText.writeNull(dst, d);
        } else {
            byte[] status = STATUSES[random.nextInt(STATUSES.length)];
            System.arraycopy(status, 0, dst, d, status.length);
            d += status.length;
        }
        dst[d++] = CopyText.DELIMITER;

        random.reseed(seed, id, NOTE_STREAM);
        if (random.chance(30)) {
            d = CopyText.writeNull(dst, d);
        } else {
            int len = writeNote(random);
            d = CopyText.escape(note, 0, len, dst, d);
        }
        dst[d++] = CopyText.ROW_END;
        return d;
    }

    /** Word-like sentences, some hundreds of bytes; now and then a newline, a tab or a backslash path. */
    private int writeNote(RowRandom r) {
        int words = 30 + r.nextInt(MAX_NOTE_WORDS - 30 + 1);
        boolean multiLine = r.chance(30);
        boolean tab = r.chance(10);
        int n = 0;
        int sentenceLeft = 0;
        for (int w = 0; w < words; w++) {
            if (sentenceLeft == 0) {
                if (w > 0) {
                    note[n++] = '.';
                    note[n++] = multiLine && r.chance(300) ? (byte) '\n' : (byte) ' ';
                }
                sentenceLeft = 6 + r.nextInt(10);
                int startOfWord = n;
                n = VOCABULARY.appendWord(r, note, n);
                note[startOfWord] = (byte) Character.toUpperCase(note[startOfWord]);
            } else {
                note[n++] = tab && r.chance(20) ? (byte) '\t' : (byte) ' ';
                n = VOCABULARY.appendWord(r, note, n);
            }
            sentenceLeft--;
        }
        note[n++] = '.';
        if (r.chance(10)) {
            note[n++] = ' ';
            System.arraycopy(PATH_PREFIX, 0, note, n, PATH_PREFIX.length);
            n += PATH_PREFIX.length;
            n = VOCABULARY.appendWord(r, note, n);
            note[n++] = '\\';
            n = VOCABULARY.appendWord(r, note, n);
            note[n++] = '.';
            note[n++] = 'c';
            note[n++] = 's';
            note[n++] = 'v';
        }
        return n;
    }

    /** timestamp output in ISO style: fractional seconds without trailing zeros, none when zero. */
    static int writeTimestamp(long epochSecond, int micros, byte[] dst, int off) {
        int secondOfDay = Math.floorMod(epochSecond, 86_400);
        off = CopyText.writeDate(Math.floorDiv(epochSecond, 86_400), dst, off);
        dst[off++] = ' ';
        off = CopyText.pad(secondOfDay / 3600, 2, dst, off);
        dst[off++] = ':';
        off = CopyText.pad(secondOfDay / 60 % 60, 2, dst, off);
        dst[off++] = ':';
        off = CopyText.pad(secondOfDay % 60, 2, dst, off);
        if (micros != 0) {
            int digits = 6;
            while (micros % 10 == 0) {
                micros /= 10;
                digits--;
            }
            dst[off++] = '.';
            off = CopyText.pad(micros, digits, dst, off);
        }
        return off;
    }

    private static byte[][] bytes(String... values) {
        byte[][] out = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            out[i] = values[i].getBytes(StandardCharsets.US_ASCII);
        }
        return out;
    }
}
