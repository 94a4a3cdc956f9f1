package io.gpdedup.pg;

import java.nio.charset.StandardCharsets;

/**
 * The rows of a synthetic {@code lineitem} fact table ({@link #DDL}, the shape of TPC-H's) in COPY
 * text: keys, quantities, prices, dates and short codes with a comment of a few words, about 145
 * bytes a row. Four lines per order, orders numbered sparsely as TPC-H does (8 of every 32 keys),
 * lines of one order sharing its order date. Revision 0 is the row as loaded; an UPDATE gives
 * revision {@code r+1} a new status, return flag, discount, tax and receipt date, while keys,
 * prices, ship dates and the comment stay. The {@code char(n)} columns are padded with spaces, as
 * PostgreSQL prints them. Not thread-safe: one instance per stream.
 */
public final class LineItemsTable implements CopyTable {
    public static final String DDL = "CREATE TABLE lineitem (l_orderkey bigint, l_partkey integer, l_suppkey integer, "
            + "l_linenumber integer, l_quantity numeric(15,2), l_extendedprice numeric(15,2), l_discount numeric(15,2), "
            + "l_tax numeric(15,2), l_returnflag char(1), l_linestatus char(1), l_shipdate date, l_commitdate date, "
            + "l_receiptdate date, l_shipinstruct char(25), l_shipmode char(10), l_comment varchar(44))";

    private static final int LINES_PER_ORDER = 4;
    private static final int PARTS = 2_000_000;
    private static final int SUPPLIERS = 100_000;
    /** 1992-01-01 and 1995-06-17 (TPC-H's "current date"), in days since 1970-01-01. */
    private static final int FIRST_ORDER_DAY = 8035;
    private static final int CURRENT_DAY = 9298;
    private static final int ORDER_DAYS = 2406;
    private static final long ORDER_STREAM = -2;
    private static final long COMMENT_STREAM = -3;
    private static final int MAX_COMMENT = 43;
    private static final byte[][] INSTRUCTIONS = padded(25, "DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN");
    private static final byte[][] MODES = padded(10, "REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB");
    private static final Vocabulary VOCABULARY = new Vocabulary(1.1);

    private final long seed;
    private final RowRandom random = new RowRandom();
    private final RowRandom order = new RowRandom();
    private final byte[] comment = new byte[MAX_COMMENT + Vocabulary.MAX_WORD + 1];

    public LineItemsTable(long seed) {
        this.seed = seed;
    }

    @Override
    public int writeRow(long id, int revision, byte[] dst, int off) {
        CopyTable.checkRoom(dst, off);
        long orderIndex = (id - 1) / LINES_PER_ORDER;
        long orderKey = orderIndex / 8 * 32 + orderIndex % 8 + 1;
        int orderDay = FIRST_ORDER_DAY + order.reseed(seed, orderKey, ORDER_STREAM).nextInt(ORDER_DAYS);
        random.reseed(seed, id, 0);
        int partKey = 1 + random.nextInt(PARTS);
        int quantity = 1 + random.nextInt(50);
        int shipDay = orderDay + 1 + random.nextInt(121);
        int commitDay = orderDay + 30 + random.nextInt(61);
        int receiptDay = shipDay + 1 + random.nextInt(30);
        int discount = random.nextInt(11);
        int tax = random.nextInt(9);
        boolean returned = random.chance(500);
        byte status = shipDay > CURRENT_DAY ? (byte) 'O' : (byte) 'F';
        byte[] instruction = INSTRUCTIONS[random.nextInt(INSTRUCTIONS.length)];
        byte[] mode = MODES[random.nextInt(MODES.length)];
        int supplier = 1 + (int) ((partKey + (long) random.nextInt(4) * (SUPPLIERS / 4 + (partKey - 1) / SUPPLIERS)) % SUPPLIERS);
        if (revision > 0) {
            random.reseed(seed, id, revision);
            discount = random.nextInt(11);
            tax = random.nextInt(9);
            receiptDay = shipDay + 1 + random.nextInt(30);
            returned = random.chance(500);
            status = 'F';
        }
        byte flag = receiptDay > CURRENT_DAY ? (byte) 'N' : returned ? (byte) 'R' : (byte) 'A';

        int d = CopyText.writeLong(orderKey, dst, off);
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeLong(partKey, dst, d);
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeLong(supplier, dst, d);
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeLong((id - 1) % LINES_PER_ORDER + 1, dst, d);
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeCents(quantity * 100L, dst, d);
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeCents(quantity * retailCents(partKey), dst, d);
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeCents(discount, dst, d);
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeCents(tax, dst, d);
        dst[d++] = CopyText.DELIMITER;
        dst[d++] = flag;
        dst[d++] = CopyText.DELIMITER;
        dst[d++] = status;
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeDate(shipDay, dst, d);
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeDate(commitDay, dst, d);
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeDate(receiptDay, dst, d);
        dst[d++] = CopyText.DELIMITER;
        System.arraycopy(instruction, 0, dst, d, instruction.length);
        d += instruction.length;
        dst[d++] = CopyText.DELIMITER;
        System.arraycopy(mode, 0, dst, d, mode.length);
        d += mode.length;
        dst[d++] = CopyText.DELIMITER;
        int len = writeComment(random.reseed(seed, id, COMMENT_STREAM));
        System.arraycopy(comment, 0, dst, d, len);
        d += len;
        dst[d++] = CopyText.ROW_END;
        return d;
    }

    /** TPC-H's part price: a function of the part key alone, so every line of a part costs the same. */
    private static long retailCents(int partKey) {
        return 90_000 + (partKey / 10) % 20_001 + 100L * (partKey % 1000);
    }

    /** Whole words up to a length drawn from 10 to 43 characters (a first word even if it is longer); returns the length. */
    private int writeComment(RowRandom r) {
        int limit = 10 + r.nextInt(MAX_COMMENT - 10 + 1);
        int n = VOCABULARY.appendWord(r, comment, 0);
        while (true) {
            int mark = n;
            comment[n++] = ' ';
            n = VOCABULARY.appendWord(r, comment, n);
            if (n > limit) {
                return mark;
            }
        }
    }

    private static byte[][] padded(int width, String... values) {
        byte[][] out = new byte[values.length][];
        for (int i = 0; i < values.length; i++) {
            out[i] = String.format("%-" + width + "s", values[i]).getBytes(StandardCharsets.US_ASCII);
        }
        return out;
    }
}
