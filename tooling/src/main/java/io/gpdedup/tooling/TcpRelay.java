package io.gpdedup.tooling;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP relay on a loopback address in front of a real server. Connections are passed on from the
 * address the relay listens on, so a benchmark's simulated host shows the server an address of its own
 * (127.0.0.3, as one segment host each), and bytes are copied as they come. It can cut the network:
 * {@link #cut} resets every connection it carries (both sides see a reset) and, for the given time,
 * closes every new connection at once, as a cable pulled and plugged back in would. Its port stays the same.
 */
public final class TcpRelay implements AutoCloseable {
    private final ServerSocket server;
    private final InetAddress address;
    private final InetSocketAddress target;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final AtomicInteger cutConnections = new AtomicInteger();
    private volatile long downUntilNanos;

    private TcpRelay(ServerSocket server, InetAddress address, InetSocketAddress target) {
        this.server = server;
        this.address = address;
        this.target = target;
    }

    /** Listens on a free port of 127.0.0.1 and relays every connection to {@code target}. */
    public static TcpRelay start(InetSocketAddress target) throws IOException {
        return start(InetAddress.getLoopbackAddress(), target);
    }

    /** Listens on a free port of {@code address} (a loopback address) and relays to {@code target} from that address. */
    public static TcpRelay start(InetAddress address, InetSocketAddress target) throws IOException {
        if (!address.isLoopbackAddress()) {
            throw new IllegalArgumentException(address + " is not a loopback address");
        }
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress(address, 0), 128);
        TcpRelay relay = new TcpRelay(s, address, target);
        Thread t = new Thread(relay::accept, "tcp-relay-accept");
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

    /** Resets every connection now and refuses new ones (accepted, then reset) for {@code down}. Returns how many it cut. */
    public int cut(Duration down) {
        downUntilNanos = System.nanoTime() + down.toNanos();
        int n = 0;
        for (Socket s : open) {
            reset(s);
            n++;
        }
        cutConnections.addAndGet(n);
        return n;
    }

    /** Sockets cut so far: two per relayed connection. */
    public int cutConnections() {
        return cutConnections.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            if (System.nanoTime() - downUntilNanos < 0) {
                reset(client);
                continue;
            }
            Socket upstream = new Socket();
            try {
                upstream.bind(new InetSocketAddress(address, 0));
                upstream.connect(target, 10_000);
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
            } catch (IOException e) {
                reset(client);
                reset(upstream);
                continue;
            }
            open.add(client);
            open.add(upstream);
            pump(client, upstream);
            pump(upstream, client);
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(() -> {
            byte[] buf = new byte[64 << 10];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buf)) >= 0) {
                    out.write(buf, 0, n);
                }
                // An orderly end passes on as one: what was written still arrives.
                to.shutdownOutput();
                if (from.isOutputShutdown()) {
                    close(from);
                    close(to);
                }
            } catch (IOException e) {
                // Cut, or the other side went away: both sockets go.
                reset(from);
                reset(to);
            }
        }, "tcp-relay-pump");
        t.setDaemon(true);
        t.start();
    }

    private void close(Socket s) {
        open.remove(s);
        try {
            s.close();
        } catch (IOException ignored) {
            // Nothing left to do with it.
        }
    }

    private void reset(Socket s) {
        open.remove(s);
        try {
            if (!s.isClosed()) {
                s.setSoLinger(true, 0);
            }
        } catch (IOException ignored) {
            // Closed meanwhile.
        }
        try {
            s.close();
        } catch (IOException ignored) {
            // Nothing left to do with it.
        }
    }

    /** Stops listening and resets every connection. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // Closing is all there is.
        }
        for (Socket s : open) {
            reset(s);
        }
    }
}
