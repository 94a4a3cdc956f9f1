package io.gpdedup.bench.compare;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A loopback TCP relay between the plugin and the store that counts the bytes crossing it each
 * way: what the plugin really puts on the wire (frames, fingerprints, recipes, chunk payloads),
 * which neither the plugin's log nor the kernel's per-process I/O counters tell. It costs a copy
 * through one more socket pair, so it makes gpdedup slower, never faster.
 */
final class WireCounter implements AutoCloseable {
    private final ServerSocketChannel server;
    private final InetSocketAddress target;
    private final AtomicLong toServer = new AtomicLong();
    private final AtomicLong toClient = new AtomicLong();
    private final List<SocketChannel> open = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    WireCounter(int targetPort) throws IOException {
        this.target = new InetSocketAddress(InetAddress.getLoopbackAddress(), targetPort);
        this.server = ServerSocketChannel.open().bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.acceptor = new Thread(this::accept, "wire-counter-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        try {
            return ((InetSocketAddress) server.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new IllegalStateException("relay socket closed", e);
        }
    }

    /** Bytes relayed from clients to the store so far. */
    long bytesToServer() {
        return toServer.get();
    }

    /** Bytes relayed from the store to clients so far. */
    long bytesToClient() {
        return toClient.get();
    }

    /**
     * Waits until no byte has crossed for {@code quietMillis} (at most {@code maxMillis}), so that
     * counts read after a plugin call include its last frames. Connections stay open between calls
     * (the host agent pools them), so closing is no signal.
     */
    void awaitQuiet(long quietMillis, long maxMillis) {
        long end = System.nanoTime() + maxMillis * 1_000_000;
        long last = toServer.get() + toClient.get();
        long quietSince = System.nanoTime();
        while (System.nanoTime() < end && System.nanoTime() - quietSince < quietMillis * 1_000_000) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            long now = toServer.get() + toClient.get();
            if (now != last) {
                last = now;
                quietSince = System.nanoTime();
            }
        }
    }

    private void accept() {
        while (server.isOpen()) {
            try {
                SocketChannel client = server.accept();
                SocketChannel upstream = SocketChannel.open(target);
                client.socket().setTcpNoDelay(true);
                upstream.socket().setTcpNoDelay(true);
                open.add(client);
                open.add(upstream);
                java.util.concurrent.atomic.AtomicInteger pumps = new java.util.concurrent.atomic.AtomicInteger(2);
                Runnable done = () -> {
                    if (pumps.decrementAndGet() == 0) {
                        closeQuietly(client);
                        closeQuietly(upstream);
                        open.remove(client);
                        open.remove(upstream);
                    }
                };
                pump(client, upstream, toServer, done);
                pump(upstream, client, toClient, done);
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (!server.isOpen()) {
                    return;
                }
                // One failed connection (the store refused it) must not end the relay: the plugin sees the failure itself.
            }
        }
    }

    private void pump(SocketChannel from, SocketChannel to, AtomicLong counter, Runnable done) {
        Thread t = new Thread(() -> {
            ByteBuffer buf = ByteBuffer.allocateDirect(256 << 10);
            try {
                while (from.read(buf) >= 0) {
                    buf.flip();
                    counter.addAndGet(buf.remaining());
                    while (buf.hasRemaining()) {
                        to.write(buf);
                    }
                    buf.clear();
                }
                to.shutdownOutput();
            } catch (IOException e) {
                closeQuietly(from);
                closeQuietly(to);
            } finally {
                done.run();
            }
        }, "wire-counter-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // Already broken: nothing left to release.
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (SocketChannel c : open) {
            closeQuietly(c);
        }
    }
}
