package io.gpdedup.e2e.data;

import java.io.InputStream;

/**
 * {@code block} over and over, {@code length} bytes in all: a long stream whose chunks after the
 * first pass the store already holds, so a test can back up hundreds of MiB and store a block.
 */
public final class RepeatedBlock extends InputStream {
    private final byte[] block;
    private long left;
    private int at;

    public RepeatedBlock(byte[] block, long length) {
        this.block = block;
        this.left = length;
    }

    @Override
    public int read() {
        byte[] one = new byte[1];
        return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public int read(byte[] b, int off, int len) {
        if (left == 0) {
            return -1;
        }
        int n = (int) Math.min(Math.min(len, left), block.length - at);
        System.arraycopy(block, at, b, off, n);
        at = (at + n) % block.length;
        left -= n;
        return n;
    }
}
