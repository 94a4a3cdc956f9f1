package io.gpdedup.bench.runner;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Gives a simulated host its own address: the host's plugin calls connect here (a free port of the
 * host's loopback address, e.g. 127.0.0.3) and every connection is passed on to the store from
 * that same address, so the store sees one client address per host, as the appliance saw one per
 * segment host. Bytes are copied as they come; nothing is buffered beyond a socket's own buffers.
 */
final class LoopbackRelay implements AutoCloseable {
    private final ServerSocket server;
    private final InetAddress address;
    private final InetSocketAddress store;
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    private LoopbackRelay(ServerSocket server, InetAddress address, InetSocketAddress store) {
        this.server = server;
        this.address = address;
        this.store = store;
    }

    /** Listens on a free port of {@code address} (a loopback address) and relays to {@code store}. */
    public static LoopbackRelay start(InetAddress address, InetSocketAddress store) throws IOException {
        if (!address.isLoopbackAddress()) {
            throw new IllegalArgumentException(address + " is not a loopback address");
        }
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress(address, 0), 128);
        LoopbackRelay relay = new LoopbackRelay(s, address, store);
        Thread t = new Thread(relay::accept, "relay-accept");
        t.setDaemon(true);
        t.start();
        return relay;
    }

    public InetAddress address() {
        return address;
    }

    public int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            Socket upstream = new Socket();
            try {
                upstream.bind(new InetSocketAddress(address, 0));
                upstream.connect(store, 10_000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(upstream);
                continue;
            }
            open.add(client);
            open.add(upstream);
            java.util.concurrent.atomic.AtomicInteger running = new java.util.concurrent.atomic.AtomicInteger(2);
            pump(client, upstream, running, "relay-up");
            pump(upstream, client, running, "relay-down");
        }
    }

    /** Copies one direction; the pair is closed when both directions have ended. */
    private void pump(Socket from, Socket to, java.util.concurrent.atomic.AtomicInteger running, String name) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                }
                to.shutdownOutput();
                if (running.decrementAndGet() > 0) {
                    return;
                }
            } catch (IOException e) {
                running.set(0);
            }
            closeQuietly(from);
            closeQuietly(to);
            open.remove(from);
            open.remove(to);
        }, name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // Closing is all that is left to do.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : open) {
            closeQuietly(s);
        }
    }
}
