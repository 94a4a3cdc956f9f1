package io.gpdedup.store.client;

import io.gpdedup.store.protocol.ErrorCode;
import io.gpdedup.store.protocol.Frame;
import io.gpdedup.store.protocol.FrameCodec;
import io.gpdedup.store.protocol.ProtocolVersions;
import io.gpdedup.store.protocol.Reply;
import io.gpdedup.store.protocol.Request;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A "store" on a raw socket that answers every login with one error and closes, as a standby
 * answers NOT_SERVED for a unit another store holds: HELLO is answered (protocol version 7), AUTH
 * gets ERROR with the code given.
 */
public final class NotServedServer implements AutoCloseable {
    private final ServerSocket server;
    private final ErrorCode answer;
    private final AtomicInteger logins = new AtomicInteger();

    private NotServedServer(ErrorCode answer) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.answer = answer;
        Thread thread = new Thread(this::serve, "not-served-server");
        thread.setDaemon(true);
        thread.start();
    }

    /** A standby: every login is answered NOT_SERVED. */
    public static NotServedServer start() throws IOException {
        return start(ErrorCode.NOT_SERVED);
    }

    /** Every login is answered with {@code answer}. */
    public static NotServedServer start(ErrorCode answer) throws IOException {
        return new NotServedServer(answer);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** How many logins it refused. */
    public int logins() {
        return logins.get();
    }

    private void serve() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                Thread t = new Thread(() -> talk(s), "not-served-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void talk(Socket s) {
        try (s) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            OutputStream out = s.getOutputStream();
            Frame hello = read(in);
            out.write(bytes(Frame.of(hello.requestId(), new Reply.HelloOk(ProtocolVersions.V7, 1 << 20, 1_000))));
            Frame auth = read(in);
            if (!(auth.message() instanceof Request.Auth login)) {
                return;
            }
            logins.incrementAndGet();
            String why = answer == ErrorCode.NOT_SERVED ? "storage unit '" + login.unit() + "' is held by another store now"
                    : "refused by the test";
            out.write(bytes(Frame.of(auth.requestId(), new Reply.Error(answer, why))));
            out.flush();
        } catch (IOException e) {
            // The client hung up: its business.
        }
    }

    private static Frame read(DataInputStream in) throws IOException {
        int length = in.readInt();
        byte[] body = new byte[length];
        in.readFully(body);
        return FrameCodec.decode(ByteBuffer.wrap(body));
    }

    private static byte[] bytes(Frame f) {
        ByteBuffer b = FrameCodec.encode(f);
        byte[] a = new byte[b.remaining()];
        b.get(a);
        return a;
    }

    @Override
    public void close() throws IOException {
        server.close();
    }
}
