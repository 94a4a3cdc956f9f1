package io.gpdedup.pg;

/** {@code count} rows with consecutive ids from {@code firstId}, all at {@code revision}, in physical order. */
public record RowRun(long firstId, long count, int revision) {
    public RowRun {
        if (firstId < 1 || count < 1 || revision < 0) {
            throw new IllegalArgumentException("bad row run " + firstId + "+" + count + "@" + revision);
        }
    }

    public long endId() {
        return firstId + count;
    }
}
