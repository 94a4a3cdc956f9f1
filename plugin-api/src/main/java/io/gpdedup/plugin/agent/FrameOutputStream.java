package io.gpdedup.plugin.agent;

import java.io.IOException;
import java.io.OutputStream;

/**
 * The caller's stdout or stderr: buffered and sent as frames of one type when the buffer fills or on
 * {@link #flush()}. What was written but not flushed when a command fails is never sent, as with a
 * plugin process that exits without flushing.
 */
final class FrameOutputStream extends OutputStream {
    private final FrameWriter frames;
    private final FrameType type;
    private final byte[] buffer;
    private int used;

    FrameOutputStream(FrameWriter frames, FrameType type, int bufferBytes) {
        this.frames = frames;
        this.type = type;
        this.buffer = new byte[Math.min(bufferBytes, type.maxLength)];
    }

    @Override
    public void write(int b) throws IOException {
        if (used == buffer.length) {
            drain();
        }
        buffer[used++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        while (len > 0) {
            if (used == 0 && len >= buffer.length) {
                // Large writes go straight out, without a copy.
                frames.write(type, b, off, buffer.length);
                off += buffer.length;
                len -= buffer.length;
                continue;
            }
            int n = Math.min(len, buffer.length - used);
            System.arraycopy(b, off, buffer, used, n);
            used += n;
            off += n;
            len -= n;
            if (used == buffer.length) {
                drain();
            }
        }
    }

    @Override
    public void flush() throws IOException {
        drain();
    }

    private void drain() throws IOException {
        if (used > 0) {
            frames.write(type, buffer, 0, used);
            used = 0;
        }
    }
}
