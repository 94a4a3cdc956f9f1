package io.gpdedup.plugin.agent;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;

/**
 * Reads frames from a blocking channel: first {@link #next()} for a header, then the payload either
 * whole ({@link #payload()}) or streamed in pieces ({@link #read}). A connection that ends inside a
 * frame is an {@link EOFException}; one that ends between frames is a clean end ({@code next()} is null).
 */
final class FrameReader {
    private final ReadableByteChannel channel;
    private final ByteBuffer buffer;
    private FrameType type;
    private int remaining;

    FrameReader(ReadableByteChannel channel, int bufferBytes) {
        this.channel = channel;
        this.buffer = ByteBuffer.allocate(Math.max(bufferBytes, FrameType.HEADER_BYTES));
        this.buffer.flip();
    }

    /**
     * Skips what is left of the current frame and reads the next header.
     *
     * @return the frame's type, or null when the peer closed the connection between frames
     */
    FrameType next() throws IOException {
        while (remaining > 0) {
            skip();
        }
        if (!fill(FrameType.HEADER_BYTES)) {
            if (buffer.hasRemaining()) {
                throw new EOFException("connection closed inside a frame header");
            }
            return null;
        }
        byte code = buffer.get();
        long length = Integer.toUnsignedLong(buffer.getInt());
        FrameType t = FrameType.of(code);
        if (t == null) {
            throw new ProtocolException("unknown frame type 0x" + Integer.toHexString(code & 0xff));
        }
        if (length > t.maxLength) {
            throw new ProtocolException(t + " frame of " + length + " bytes exceeds its limit of " + t.maxLength);
        }
        type = t;
        remaining = (int) length;
        return t;
    }

    /** Payload bytes of the current frame not read yet. */
    int remaining() {
        return remaining;
    }

    /** Reads up to {@code len} payload bytes of the current frame; -1 once the frame is used up. */
    int read(byte[] b, int off, int len) throws IOException {
        if (remaining == 0) {
            return -1;
        }
        int want = Math.min(len, remaining);
        if (!buffer.hasRemaining() && want >= buffer.capacity()) {
            // Large reads go straight into the caller's array: the buffer stays small for every connection.
            int n = channel.read(ByteBuffer.wrap(b, off, want));
            if (n < 0) {
                throw new EOFException("connection closed inside a " + type + " frame");
            }
            remaining -= n;
            return n;
        }
        if (!buffer.hasRemaining()) {
            buffer.clear();
            int n = channel.read(buffer);
            buffer.flip();
            if (n < 0) {
                throw new EOFException("connection closed inside a " + type + " frame");
            }
        }
        int n = Math.min(Math.min(len, remaining), buffer.remaining());
        buffer.get(b, off, n);
        remaining -= n;
        return n;
    }

    /** The whole payload of the current frame (bounded by its type's limit). */
    byte[] payload() throws IOException {
        byte[] b = new byte[remaining];
        int off = 0;
        while (off < b.length) {
            off += read(b, off, b.length - off);
        }
        return b;
    }

    private void skip() throws IOException {
        if (!buffer.hasRemaining()) {
            buffer.clear();
            int n = channel.read(buffer);
            buffer.flip();
            if (n < 0) {
                throw new EOFException("connection closed inside a " + type + " frame");
            }
        }
        int n = Math.min(remaining, buffer.remaining());
        buffer.position(buffer.position() + n);
        remaining -= n;
    }

    /** Ensures {@code n} unread bytes are buffered; false at end of stream. */
    private boolean fill(int n) throws IOException {
        if (buffer.remaining() >= n) {
            return true;
        }
        buffer.compact();
        try {
            while (buffer.position() < n) {
                if (channel.read(buffer) < 0) {
                    return false;
                }
            }
            return true;
        } finally {
            buffer.flip();
        }
    }
}
