package io.gpdedup.plugin.agent;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;

/**
 * The caller's stdout or stderr: buffered, and sent when the buffer fills or on {@link #flush()},
 * either as frames of one type through the launcher or straight into the caller's stdout pipe
 * ({@link CallerStdio}). What was written but not flushed when a command fails is never sent, as
 * with a plugin process that exits without flushing.
 */
final class CallOutput extends OutputStream {
    /** Where full buffers go. */
    private interface Sink {
        void send(byte[] b, int off, int len) throws IOException;
    }

    private final Sink sink;
    private final int bufferBytes;
    /** Allocated at the first small write: a call waiting for its turn, or writing nothing, holds none. */
    private byte[] buffer;
    private int used;

    private CallOutput(Sink sink, int bufferBytes) {
        this.sink = sink;
        this.bufferBytes = bufferBytes;
    }

    private byte[] buffer() {
        if (buffer == null) {
            buffer = new byte[bufferBytes];
        }
        return buffer;
    }

    static CallOutput frames(FrameWriter frames, FrameType type, int bufferBytes) {
        return new CallOutput(frameSink(frames, type), Math.min(bufferBytes, type.maxLength));
    }

    private static Sink frameSink(FrameWriter frames, FrameType type) {
        return (b, off, len) -> frames.write(type, b, off, len);
    }

    /**
     * The caller's stdout: straight into its pipe when {@code stdio} can open it (tried at the first
     * bytes, so calls that print nothing never open it), else as STDOUT frames.
     */
    static CallOutput stdout(FrameWriter frames, CallerStdio stdio, int bufferBytes) {
        Sink[] chosen = new Sink[1];
        return new CallOutput((b, off, len) -> {
            if (chosen[0] == null) {
                FileChannel pipe = stdio.openStdout();
                chosen[0] = pipe == null ? frameSink(frames, FrameType.STDOUT) : (x, o, l) -> writeFully(pipe, stdio, x, o, l);
            }
            chosen[0].send(b, off, len);
        }, Math.min(bufferBytes, FrameType.STDOUT.maxLength));
    }

    private static void writeFully(FileChannel pipe, CallerStdio stdio, byte[] b, int off, int len) throws IOException {
        ByteBuffer bb = ByteBuffer.wrap(b, off, len);
        try {
            while (bb.hasRemaining()) {
                pipe.write(bb);
            }
        } catch (ClosedChannelException e) {
            throw new IOException(stdio.callerGone() ? "the caller exited during the call: stdout is gone" : "stdout was closed", e);
        }
    }

    @Override
    public void write(int b) throws IOException {
        if (used == bufferBytes) {
            drain();
        }
        buffer()[used++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        while (len > 0) {
            if (used == 0 && len >= bufferBytes) {
                // Large writes go straight out, without a copy.
                sink.send(b, off, bufferBytes);
                off += bufferBytes;
                len -= bufferBytes;
                continue;
            }
            int n = Math.min(len, bufferBytes - used);
            System.arraycopy(b, off, buffer(), used, n);
            used += n;
            off += n;
            len -= n;
            if (used == bufferBytes) {
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
            sink.send(buffer, 0, used);
            used = 0;
        }
    }
}
