package io.gpdedup.store.net;

import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.util.List;

/** A socket speaking raw frames (or raw bytes), to test what the client library would never send. */
public final class RawConnection implements AutoCloseable {
    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;
    private int version; // chosen in HELLO_OK, 0 before

    public RawConnection(int port) throws IOException {
        socket = new Socket("127.0.0.1", port);
        socket.setSoTimeout(20_000);
        in = new DataInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    /** HELLO and AUTH as unit A. */
    public static RawConnection loggedIn(int port) throws IOException {
        return loggedIn(port, ProtocolVersions.SUPPORTED);
    }

    /** HELLO offering {@code versions}, then AUTH as unit A; {@link #version()} is the one the server chose. */
    public static RawConnection loggedIn(int port, List<Integer> versions) throws IOException {
        RawConnection c = new RawConnection(port);
        c.send(Frame.of(1, new Request.Hello(versions)));
        if (!(c.read().message() instanceof Reply.HelloOk ok)) {
            throw new IOException("no HELLO_OK");
        }
        c.version = ok.version();
        c.send(Frame.of(2, new Request.Auth(StoreFixture.UNIT_A, StoreFixture.USER_A, StoreFixture.PASSWORD_A)));
        if (!(c.read().message() instanceof Reply.AuthOk)) {
            throw new IOException("no AUTH_OK");
        }
        return c;
    }

    int version() {
        return version;
    }

    public void send(Frame frame) throws IOException {
        ByteBuffer b = FrameCodec.encode(frame);
        out.write(b.array(), 0, b.limit());
    }

    /**
     * The frames' bytes in pieces of 1 to 7, each sent on its own after a pause, so that the server
     * reads length fields and bodies cut at every kind of place.
     */
    void sendInPieces(Frame... frames) throws IOException, InterruptedException {
        java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
        for (Frame f : frames) {
            ByteBuffer b = FrameCodec.encode(f);
            all.write(b.array(), 0, b.limit());
        }
        byte[] bytes = all.toByteArray();
        socket.setTcpNoDelay(true);
        for (int at = 0, piece = 1; at < bytes.length; at += piece, piece = piece % 7 + 1) {
            out.write(bytes, at, Math.min(piece, bytes.length - at));
            out.flush();
            Thread.sleep(1);
        }
    }

    public void sendBytes(byte[] bytes) throws IOException {
        out.write(bytes);
    }

    public Frame read() throws IOException {
        int length = in.readInt();
        byte[] body = new byte[length];
        in.readFully(body);
        return FrameCodec.decode(ByteBuffer.wrap(body));
    }

    /** Whether the server closed the connection (reads end of stream, or a reset). */
    public boolean closedByServer() throws IOException {
        try {
            return in.read() < 0;
        } catch (SocketException reset) {
            return true;
        } catch (EOFException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
