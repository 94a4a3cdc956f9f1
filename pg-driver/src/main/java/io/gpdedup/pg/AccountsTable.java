package io.gpdedup.pg;

import java.util.Arrays;

/**
 * The rows of pgbench's {@code pgbench_accounts} ({@link #DDL}) in COPY text, as {@code pgbench -i}
 * loads them: the account id, its branch (100,000 accounts a branch), a balance of 0 and a filler
 * that is blank, which {@code char(84)} pads to 84 spaces; about 100 bytes a row and among the
 * most compressible tables there are. An UPDATE moves the balance, as pgbench's transactions do:
 * revision {@code r > 0} holds a balance drawn from {@code [-5000 r, 5000 r]}.
 *
 * <p>Every seed is a slice of one large accounts table, as a segment of a cluster holds its own
 * accounts: seed 1 numbers them from 1 as {@code pgbench -i} does, other seeds from another hundred
 * million (21 slices, all within {@code integer}), so tables of different seeds share no row.
 * Not thread-safe: one instance per stream.
 */
public final class AccountsTable implements CopyTable {
    public static final String DDL = "CREATE TABLE pgbench_accounts (aid integer NOT NULL, bid integer, abalance integer, filler char(84))";

    private static final int ACCOUNTS_PER_BRANCH = 100_000;
    private static final int MAX_DELTA = 5000;
    private static final long SLICE_ACCOUNTS = 100_000_000;
    private static final int SLICES = 21;
    private static final byte[] FILLER = new byte[84];

    static {
        Arrays.fill(FILLER, (byte) ' ');
    }

    private final long seed;
    private final long firstAccount;
    private final RowRandom random = new RowRandom();

    public AccountsTable(long seed) {
        this.seed = seed;
        this.firstAccount = 1 + Math.floorMod(seed - 1, SLICES) * SLICE_ACCOUNTS;
    }

    @Override
    public int writeRow(long id, int revision, byte[] dst, int off) {
        CopyTable.checkRoom(dst, off);
        long balance = revision == 0 ? 0 : random.reseed(seed, id, revision).nextInt(2 * MAX_DELTA * revision + 1) - (long) MAX_DELTA * revision;
        long account = firstAccount + id - 1;
        int d = CopyText.writeLong(account, dst, off);
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeLong((account - 1) / ACCOUNTS_PER_BRANCH + 1, dst, d);
        dst[d++] = CopyText.DELIMITER;
        d = CopyText.writeLong(balance, dst, d);
        dst[d++] = CopyText.DELIMITER;
        System.arraycopy(FILLER, 0, dst, d, FILLER.length);
        d += FILLER.length;
        dst[d++] = CopyText.ROW_END;
        return d;
    }
}
