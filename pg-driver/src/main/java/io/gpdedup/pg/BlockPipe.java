package io.gpdedup.pg;

import java.io.IOException;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * A bounded hand-off of one table's COPY bytes from the worker that copies it to the thread that
 * writes the single-data-file stream: what gpbackup's FIFOs between COPY ... TO PROGRAM and
 * gpbackup_helper do. Writes block while {@value #DEPTH} blocks wait, so a worker that is ahead of
 * the stream holds its COPY back, as the database does on a full pipe. Either side gives up when
 * the backup as a whole is cancelled.
 */
final class BlockPipe {
    static final int BLOCK = 64 << 10;
    static final int DEPTH = 4;
    private static final byte[] END = new byte[0];

    private final BlockingQueue<byte[]> blocks = new ArrayBlockingQueue<>(DEPTH + 1);
    private final BooleanSupplier cancelled;

    BlockPipe(BooleanSupplier cancelled) {
        this.cancelled = cancelled;
    }

    /** The writing end; {@code close()} marks the end of the table. */
    OutputStream output() {
        return new OutputStream() {
            private byte[] buf = new byte[BLOCK];
            private int n;
            private boolean closed;

            @Override
            public void write(int b) throws IOException {
                if (n == buf.length) {
                    flushBlock();
                }
                buf[n++] = (byte) b;
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                while (len > 0) {
                    if (n == buf.length) {
                        flushBlock();
                    }
                    int k = Math.min(len, buf.length - n);
                    System.arraycopy(b, off, buf, n, k);
                    n += k;
                    off += k;
                    len -= k;
                }
            }

            private void flushBlock() throws IOException {
                if (n > 0) {
                    put(n == buf.length ? buf : Arrays.copyOf(buf, n));
                    buf = new byte[BLOCK];
                    n = 0;
                }
            }

            @Override
            public void close() throws IOException {
                if (!closed) {
                    closed = true;
                    flushBlock();
                    put(END);
                }
            }
        };
    }

    /** The next block, or null at the end of the table. */
    byte[] take() throws IOException {
        try {
            while (true) {
                byte[] b = blocks.poll(100, TimeUnit.MILLISECONDS);
                if (b != null) {
                    return b == END ? null : b;
                }
                if (cancelled.getAsBoolean()) {
                    throw new IOException("backup cancelled");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private void put(byte[] block) throws IOException {
        try {
            while (!blocks.offer(block, 100, TimeUnit.MILLISECONDS)) {
                if (cancelled.getAsBoolean()) {
                    throw new IOException("backup cancelled");
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
