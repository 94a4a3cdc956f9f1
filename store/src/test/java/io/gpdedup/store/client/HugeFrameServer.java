package io.gpdedup.store.client;

import io.gpdedup.store.protocol.Frame;
import io.gpdedup.store.protocol.FrameCodec;
import io.gpdedup.store.protocol.ProtocolVersions;
import io.gpdedup.store.protocol.Reply;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A hostile "store" on a raw socket: answers HELLO announcing a max frame of 2^31-1 bytes, then
 * sends the header of a frame that long, either as its answer to AUTH or, with {@code afterLogin},
 * once the client is logged in (AUTH_OK, SETTINGS) and sends its first request. It never sends the
 * frame's body: a client that tries to read it would set aside 2 GiB first.
 */
public final class HugeFrameServer implements AutoCloseable {
    public static final int ANNOUNCED = Integer.MAX_VALUE;

    private final ServerSocket server;
    private final boolean afterLogin;
    private final AtomicInteger connections = new AtomicInteger();
    private final Thread thread;

    private HugeFrameServer(boolean afterLogin) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.afterLogin = afterLogin;
        this.thread = new Thread(this::serve, "huge-frame-server");
        this.thread.setDaemon(true);
        this.thread.start();
    }

    public static HugeFrameServer start(boolean afterLogin) throws IOException {
        return new HugeFrameServer(afterLogin);
    }

    public int port() {
        return server.getLocalPort();
    }

    /** How many connections it accepted. */
    public int connections() {
        return connections.get();
    }

    private void serve() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                connections.incrementAndGet();
                Thread t = new Thread(() -> talk(s), "huge-frame-connection");
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
            out.write(bytes(Frame.of(hello.requestId(), new Reply.HelloOk(ProtocolVersions.V6, ANNOUNCED, 65_536))));
            Frame auth = read(in);
            if (afterLogin) {
                out.write(bytes(Frame.of(auth.requestId(), new Reply.AuthOk())));
                Frame settings = read(in);
                out.write(bytes(Frame.of(settings.requestId(), new Reply.Settings(600))));
                read(in);
            }
            // The length field of a frame of 2^31-1 bytes, then the start of its header; the rest never comes.
            out.write(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x10, 0, 0, 0});
            out.flush();
            while (in.read() >= 0) {
                // Held open until the client hangs up.
            }
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
