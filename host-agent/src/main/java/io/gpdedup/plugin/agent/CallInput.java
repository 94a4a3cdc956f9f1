package io.gpdedup.plugin.agent;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

/**
 * The caller's stdin as the command sees it. The first read asks the launcher for stdin, so a
 * command that never reads it leaves the caller's stdin untouched. End of file comes only from an
 * explicit {@link FrameType#STDIN_EOF}: a connection that closes first means the launcher died
 * mid-stream, and every read then fails, so a truncated backup is never taken for a complete one.
 *
 * <p>When the caller's stdin can be opened directly ({@link CallerStdio}), the command reads it
 * without the launcher; at its end of file the agent still asks the launcher for stdin (telling it
 * how many bytes it took, so a file's offset moves on as if the launcher had read them), and only
 * the launcher's STDIN_EOF ends the stream: a launcher killed meanwhile is a failure, as in the relay.
 */
final class CallInput extends InputStream {
    private final FrameReader frames;
    private final FrameWriter replies;
    private final CallerStdio stdio;
    private FileChannel direct;
    private long directBytes;
    private boolean requested;
    private boolean eof;
    private IOException failure;

    CallInput(FrameReader frames, FrameWriter replies, CallerStdio stdio) {
        this.frames = frames;
        this.replies = replies;
        this.stdio = stdio;
    }

    @Override
    public int read() throws IOException {
        byte[] one = new byte[1];
        int n = read(one, 0, 1);
        return n < 0 ? -1 : one[0] & 0xff;
    }

    @Override
    public synchronized int read(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (failure != null) {
            throw failure;
        }
        if (eof) {
            return -1;
        }
        if (len == 0) {
            return 0;
        }
        try {
            if (!requested) {
                requested = true;
                direct = stdio.openStdin();
                if (direct == null) {
                    requestStdin(new byte[0]);
                }
            }
            if (direct != null) {
                int n = readDirect(b, off, len);
                if (n > 0) {
                    return n;
                }
            }
            while (frames.remaining() == 0) {
                FrameType t = connectionLostIsIncomplete(frames::next);
                if (t == null) {
                    throw incomplete("connection closed");
                }
                switch (t) {
                    case STDIN:
                        break;
                    case STDIN_EOF:
                        eof = true;
                        return -1;
                    case STDIN_ABORT:
                        throw new IOException("reading the caller's stdin failed: "
                                + new String(connectionLostIsIncomplete(frames::payload), StandardCharsets.UTF_8));
                    default:
                        throw new ProtocolException("unexpected " + t + " frame while reading stdin");
                }
            }
            return connectionLostIsIncomplete(() -> frames.read(b, off, len));
        } catch (IOException e) {
            failure = e;
            throw e;
        }
    }

    /** Reads the caller's stdin itself; at its end hands over to the launcher and returns 0. */
    private int readDirect(byte[] b, int off, int len) throws IOException {
        int n;
        try {
            do {
                n = direct.read(ByteBuffer.wrap(b, off, len));
            } while (n == 0);
        } catch (ClosedChannelException e) {
            throw incomplete(stdio.callerGone() ? "the caller exited" : "its stdin was closed");
        }
        if (n > 0) {
            directBytes += n;
            return n;
        }
        stdio.release(direct);
        direct = null;
        // A killed launcher's pipe ends too (its writer may close it when the launcher dies): only a
        // launcher that is still there can say the end was the real one.
        requestStdin(ByteBuffer.allocate(8).putLong(directBytes).array());
        return 0;
    }

    private void requestStdin(byte[] payload) throws IOException {
        try {
            replies.write(FrameType.STDIN_REQUEST, payload);
        } catch (IOException e) {
            throw incomplete("the launcher is gone: " + e.getMessage());
        }
    }

    private interface FrameCall<T> {
        T call() throws IOException;
    }

    /**
     * A connection that ends or breaks (closed, reset, cut inside a frame) while stdin is awaited means
     * the launcher died before STDIN_EOF, however the socket reports it; a protocol error stays one.
     */
    private static <T> T connectionLostIsIncomplete(FrameCall<T> c) throws IOException {
        try {
            return c.call();
        } catch (ProtocolException e) {
            throw e;
        } catch (IOException e) {
            throw incomplete(e.getMessage());
        }
    }

    private static IOException incomplete(String how) {
        return new IOException("the caller went away before the end of its stdin (" + how + ", no STDIN_EOF): input is incomplete");
    }

    @Override
    public synchronized int available() {
        return failure == null && !eof ? frames.remaining() : 0;
    }
}
