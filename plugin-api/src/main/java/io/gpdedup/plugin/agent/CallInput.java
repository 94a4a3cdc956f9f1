package io.gpdedup.plugin.agent;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * The caller's stdin as the command sees it. The first read asks the launcher for stdin, so a
 * command that never reads it leaves the caller's stdin untouched. End of file comes only from an
 * explicit {@link FrameType#STDIN_EOF}: a connection that closes first means the launcher died
 * mid-stream, and every read then fails, so a truncated backup is never taken for a complete one.
 */
final class CallInput extends InputStream {
    private final FrameReader frames;
    private final FrameWriter replies;
    private boolean requested;
    private boolean eof;
    private IOException failure;

    CallInput(FrameReader frames, FrameWriter replies) {
        this.frames = frames;
        this.replies = replies;
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
                replies.write(FrameType.STDIN_REQUEST);
            }
            while (frames.remaining() == 0) {
                FrameType t = frames.next();
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
                        throw new IOException("reading the caller's stdin failed: " + new String(frames.payload(), StandardCharsets.UTF_8));
                    default:
                        throw new ProtocolException("unexpected " + t + " frame while reading stdin");
                }
            }
            return frames.read(b, off, len);
        } catch (EOFException e) {
            failure = incomplete(e.getMessage());
            throw failure;
        } catch (IOException e) {
            failure = e;
            throw e;
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
