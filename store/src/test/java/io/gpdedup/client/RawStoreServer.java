package io.gpdedup.client;

import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A "store" on a raw loopback socket that speaks as its subclass scripts it, frame by frame: for
 * the answers a real store never gives. Each connection runs on a daemon thread of its own.
 */
abstract class RawStoreServer implements AutoCloseable {
    private final ServerSocket server;
    private final AtomicInteger connections = new AtomicInteger();

    RawStoreServer(String name) throws IOException {
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread thread = new Thread(this::serve, name);
        thread.setDaemon(true);
        thread.start();
    }

    public int port() {
        return server.getLocalPort();
    }

    /** How many connections it accepted. */
    public int connections() {
        return connections.get();
    }

    /** Speaks with one client; the socket is closed after it returns. */
    abstract void talk(DataInputStream in, OutputStream out) throws IOException;

    private void serve() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                connections.incrementAndGet();
                Thread t = new Thread(() -> talk(s), Thread.currentThread().getName() + "-connection");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void talk(Socket s) {
        try (s) {
            talk(new DataInputStream(s.getInputStream()), s.getOutputStream());
        } catch (IOException e) {
            // The client hung up: its business.
        }
    }

    static Frame read(DataInputStream in) throws IOException {
        int length = in.readInt();
        byte[] body = new byte[length];
        in.readFully(body);
        return FrameCodec.decode(ByteBuffer.wrap(body));
    }

    static byte[] bytes(Frame f) {
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
