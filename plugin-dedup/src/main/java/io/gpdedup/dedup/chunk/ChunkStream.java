package io.gpdedup.dedup.chunk;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;
import java.util.Objects;

/**
 * Cuts an {@link InputStream} into content-defined chunks, as a cursor: each {@link #next()} makes
 * the next chunk available as a view {@code buffer()[bufferOffset(), bufferOffset()+length())}
 * that stays valid until the following {@code next()} or {@link #close()}. Nothing is allocated
 * per chunk; copy the bytes if you need them longer.
 *
 * <p>Memory: one buffer of exactly {@link #bufferSize(ChunkerParams) 2 &times; max} bytes,
 * allocated once: up to {@code max} bytes for the chunk being cut plus at least {@code max}
 * bytes of read-ahead. The unconsumed tail (&lt; max bytes) is moved to the front only when fewer
 * than {@code max} bytes remain, so at most one byte is copied per byte read, and usually far less.
 *
 * <p>Boundaries are the same whatever sizes the underlying stream's reads return. Not thread-safe.
 */
public final class ChunkStream implements Closeable {
    private final InputStream in;
    private final Chunker chunker;
    private final int max;
    private final byte[] buf;
    private int pos;
    private int limit;
    private boolean eof;
    private long posStreamOffset;
    private int chunkLength;
    private boolean closed;

    ChunkStream(InputStream in, Chunker chunker) {
        this.in = Objects.requireNonNull(in, "in");
        this.chunker = Objects.requireNonNull(chunker, "chunker");
        this.max = chunker.params().maxSize();
        this.buf = new byte[bufferSize(chunker.params())];
    }

    /** Bytes of buffer a stream with these params holds: its whole memory bound. */
    public static int bufferSize(ChunkerParams params) {
        return 2 * params.maxSize();
    }

    /**
     * Advances to the next chunk. Returns false at end of stream, after which {@link #length()} is 0.
     *
     * @throws IOException from the underlying stream; chunks already returned stay valid data
     */
    public boolean next() throws IOException {
        if (closed) {
            throw new IOException("chunk stream is closed");
        }
        pos += chunkLength;
        posStreamOffset += chunkLength;
        chunkLength = 0;
        if (limit - pos < max && !eof) {
            refill();
        }
        int available = limit - pos;
        if (available == 0) {
            return false;
        }
        chunkLength = chunker.cut(buf, pos, available);
        return true;
    }

    private void refill() throws IOException {
        int remaining = limit - pos;
        if (pos > 0) {
            System.arraycopy(buf, pos, buf, 0, remaining);
            pos = 0;
            limit = remaining;
        }
        // Fill the whole buffer, not just up to max: the next refill is then at least max bytes away.
        while (limit < buf.length) {
            int n = in.read(buf, limit, buf.length - limit);
            if (n < 0) {
                eof = true;
                return;
            }
            limit += n;
        }
    }

    /** The array holding the current chunk. The same array for the stream's whole life. */
    public byte[] buffer() {
        return buf;
    }

    /** Where the current chunk starts in {@link #buffer()}. */
    public int bufferOffset() {
        return pos;
    }

    /** Length of the current chunk in bytes; 0 before the first and after the last chunk. */
    public int length() {
        return chunkLength;
    }

    /** Offset of the current chunk's first byte in the whole input stream. */
    long streamOffset() {
        return posStreamOffset;
    }

    /** A copy of the current chunk's bytes. */
    public byte[] copyChunk() {
        return Arrays.copyOfRange(buf, pos, pos + chunkLength);
    }

    /** Closes the underlying stream. */
    @Override
    public void close() throws IOException {
        if (!closed) {
            closed = true;
            chunkLength = 0;
            in.close();
        }
    }
}
