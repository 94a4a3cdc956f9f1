package io.gpdedup.client;

import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.protocol.wire.StoreProtocolException;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLHandshakeException;

/**
 * One authenticated socket: writes request frames (whole frames, under a lock, from any thread)
 * and runs the reader thread that hands each reply frame to the collector waiting for its id.
 * With keep-alive on, it sends a PING whenever it has sent nothing for a quarter of the server's
 * idle timeout, so that a call whose caller pauses (a backup between tables) keeps its connection
 * and its lease.
 */
final class Connection implements AutoCloseable {
    /** Before HELLO_OK says the real limit, replies are small. */
    private static final int HANDSHAKE_MAX_FRAME = 64 * 1024;
    private static final int HELLO_ID = 1;
    private static final int AUTH_ID = 2;
    private static final int SETTINGS_ID = 3;
    /** A server of protocol version 1 or 2 does not say its idle timeout: its default is 600 s. */
    private static final Duration ASSUMED_IDLE_TIMEOUT = Duration.ofSeconds(600);
    private static final long MIN_KEEPALIVE_NANOS = 100_000_000L;
    private static final ScheduledExecutorService KEEPALIVE = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gpdedup-store-keepalive");
        t.setDaemon(true);
        return t;
    });

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;
    private final String peer;
    private final long readTimeoutNanos;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Map<Integer, ReplyCollector<?>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger nextId = new AtomicInteger(SETTINGS_ID + 1);
    private final int version;
    private final int maxFrame;
    private final int maxBatch;
    private final long keepAliveNanos;
    private final boolean syncSpoolOnly;
    private final Thread reader;
    private volatile StoreClientException failure;
    private volatile long lastReceiveNanos = System.nanoTime();
    private volatile long lastSendNanos = System.nanoTime();
    private ScheduledFuture<?> keepAlive; // guarded by this

    private Connection(Socket socket, String peer, long readTimeoutNanos, Reply.HelloOk hello, Reply.Settings settings) throws IOException {
        this.socket = socket;
        this.in = socket.getInputStream();
        this.out = socket.getOutputStream();
        this.peer = peer;
        this.readTimeoutNanos = readTimeoutNanos;
        this.version = hello.version();
        this.maxFrame = maxFrameFrom(hello);
        this.maxBatch = hello.maxBatch();
        this.keepAliveNanos = Math.max(MIN_KEEPALIVE_NANOS, TimeUnit.SECONDS.toNanos(settings.idleTimeoutSeconds()) / 4);
        this.syncSpoolOnly = settings.syncSpoolOnly();
        this.reader = new Thread(this::readLoop, "gpdedup-store-reader " + peer);
        this.reader.setDaemon(true);
    }

    /**
     * Connects to the store at {@code at} and logs in, waiting at most the connect timeout for the
     * TCP connection and {@code handshakeTimeout} for each answer of the handshake.
     */
    static Connection open(ClientSettings s, StoreAddress at, Duration handshakeTimeout) {
        String peer = at.toString();
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            try {
                socket.connect(new InetSocketAddress(at.host(), at.port()), (int) Math.min(Integer.MAX_VALUE, s.connectTimeout().toMillis()));
            } catch (UnknownHostException e) {
                throw new StoreConnectException("cannot connect to gpdedup-store at " + peer + ": unknown host", e);
            } catch (ConnectException e) {
                throw new StoreConnectException("cannot connect to gpdedup-store at " + peer + ": " + e.getMessage()
                        + " (is the server running and listening there?)", e);
            } catch (SocketTimeoutException e) {
                throw new StoreConnectException("cannot connect to gpdedup-store at " + peer + ": no answer within " + seconds(s.connectTimeout()), e);
            }
            socket.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, handshakeTimeout.toMillis())));
            if (s.tls() != null) {
                try {
                    socket = s.tls().wrap(socket, at.host(), at.port());
                } catch (SocketTimeoutException e) {
                    throw new StoreTimeoutException("gpdedup-store at " + peer + " did not finish the TLS handshake within " + seconds(handshakeTimeout));
                } catch (IOException e) {
                    String message = "TLS handshake with gpdedup-store at " + peer + " failed: " + e.getMessage()
                            + " (does the server have TLS on, and does tls_ca_file hold its certificate or CA?)";
                    // A certificate or protocol refusal stays one on every retry; a connection cut mid-handshake may not.
                    boolean lasting = e instanceof SSLHandshakeException && !(e.getCause() instanceof SocketException)
                            && !(e.getCause() instanceof EOFException);
                    throw new StoreConnectException(message, e, lasting);
                }
            }
            InputStream in = socket.getInputStream();
            OutputStream out = socket.getOutputStream();
            write(out, Frame.of(HELLO_ID, new Request.Hello(ProtocolVersions.SUPPORTED)));
            Frame hello = readFrame(in, HANDSHAKE_MAX_FRAME, null);
            if (hello.message() instanceof Reply.Error e) {
                throw new StoreServerException(e.code(), "gpdedup-store at " + peer + " refused the handshake: " + e.message());
            }
            if (!(hello.message() instanceof Reply.HelloOk ok) || hello.requestId() != HELLO_ID) {
                throw new StoreClientException(peer + " answered HELLO with " + hello.type() + ": is it a gpdedup-store?");
            }
            write(out, Frame.of(AUTH_ID, new Request.Auth(s.unit(), s.user(), s.password())));
            Frame auth = readFrame(in, maxFrameFrom(ok), null);
            if (auth.message() instanceof Reply.Error e) {
                if (e.code() == ErrorCode.AUTH_FAILED) {
                    throw new StoreAuthException("gpdedup-store at " + peer + " refused user '" + s.user() + "' on storage unit '"
                            + s.unit() + "': " + e.message());
                }
                throw new StoreServerException(e.code(), "gpdedup-store at " + peer + " refused the login: " + e.message());
            }
            if (!(auth.message() instanceof Reply.AuthOk)) {
                throw new StoreClientException(peer + " answered AUTH with " + auth.type());
            }
            Reply.Settings settings = new Reply.Settings(ASSUMED_IDLE_TIMEOUT.toSeconds());
            if (ok.version() >= ProtocolVersions.V3) {
                write(out, Frame.of(SETTINGS_ID, new Request.GetSettings()));
                Frame answer = readFrame(in, maxFrameFrom(ok), null);
                if (!(answer.message() instanceof Reply.Settings reply) || answer.requestId() != SETTINGS_ID) {
                    throw new StoreClientException(peer + " answered SETTINGS with " + answer.type());
                }
                settings = reply;
            }
            socket.setSoTimeout((int) Math.max(50, Math.min(1000, s.readTimeout().toMillis())));
            Connection c = new Connection(socket, peer, s.readTimeout().toNanos(), ok, settings);
            c.reader.start();
            return c;
        } catch (StoreClientException e) {
            closeQuietly(socket);
            throw e;
        } catch (SocketTimeoutException e) {
            closeQuietly(socket);
            throw new StoreTimeoutException("gpdedup-store at " + peer + " accepted the connection but did not answer the handshake within "
                    + seconds(handshakeTimeout) + " (is it a gpdedup-store?)");
        } catch (StoreProtocolException e) {
            closeQuietly(socket);
            throw new StoreClientException(peer + " broke the protocol during the handshake: " + e.getMessage() + " (is it a gpdedup-store?)");
        } catch (IOException e) {
            closeQuietly(socket);
            throw new StoreConnectException("connection to gpdedup-store at " + peer + " failed: " + reason(e), e);
        }
    }

    /**
     * The longest frame taken from this server: what it announced, but never more than
     * {@link FrameCodec#LARGEST_MAX_FRAME}, so a hostile or broken server cannot make the client
     * set aside gigabytes for one frame.
     */
    private static int maxFrameFrom(Reply.HelloOk hello) {
        return Math.min(hello.maxFrameLength(), FrameCodec.LARGEST_MAX_FRAME);
    }

    /**
     * What went wrong, for a message people read: the exception's own text, or, where it has none
     * (a stream that ended, a bug), what that kind of failure means, never a class name.
     */
    static String reason(Throwable e) {
        if (e.getMessage() != null && !e.getMessage().isBlank()) {
            return e.getMessage();
        }
        return e instanceof EOFException ? "the store closed the connection" : "an internal error in the client";
    }

    /** A duration as people read it in a message: whole seconds ("10 s"), tenths below one ("0.5 s"). */
    static String seconds(Duration d) {
        long ms = d.toMillis();
        return (ms < 1000 ? String.valueOf(Math.round(ms / 100.0) / 10.0) : String.valueOf(Math.round(ms / 1000.0))) + " s";
    }

    int version() {
        return version;
    }

    /** Whether the store's SYNC leaves chunks in a spool that dies with its host (version 7, a bucket unit). */
    boolean syncSpoolOnly() {
        return syncSpoolOnly;
    }

    int maxFrame() {
        return maxFrame;
    }

    int maxBatch() {
        return maxBatch;
    }

    String peer() {
        return peer;
    }

    boolean isOpen() {
        return failure == null;
    }

    /** Sends one request; its replies go to {@code collector}, whose future is returned. */
    <T> CompletableFuture<T> send(Request request, ReplyCollector<T> collector) {
        int id = nextId.getAndUpdate(i -> i == Integer.MAX_VALUE ? AUTH_ID + 1 : i + 1);
        ByteBuffer bytes = FrameCodec.encode(Frame.of(id, request));
        if (bytes.remaining() - FrameCodec.LENGTH_FIELD > maxFrame) {
            throw new IllegalArgumentException(request.type() + " of " + (bytes.remaining() - FrameCodec.LENGTH_FIELD)
                    + " bytes is above the server's max frame length " + maxFrame);
        }
        StoreClientException f = failure;
        if (f != null) {
            collector.future.completeExceptionally(f);
            return collector.future;
        }
        collector.sentAtNanos = System.nanoTime();
        pending.put(id, collector);
        writeLock.lock();
        try {
            lastSendNanos = System.nanoTime();
            out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
        } catch (IOException e) {
            fail(new StoreConnectionLostException("lost the connection to gpdedup-store at " + peer + " while sending " + request.type()
                    + ": " + e.getMessage(), e));
        } finally {
            writeLock.unlock();
        }
        // The connection may have failed between the check and the put; fail() then missed this one.
        if (failure != null && pending.remove(id) != null) {
            collector.future.completeExceptionally(failure);
        }
        return collector.future;
    }

    /** Turns the keep-alive on or off; off by default. */
    synchronized void keepAlive(boolean on) {
        if (on && keepAlive == null && failure == null) {
            keepAlive = KEEPALIVE.scheduleWithFixedDelay(this::keepAliveTick, keepAliveNanos, keepAliveNanos, TimeUnit.NANOSECONDS);
        } else if (!on && keepAlive != null) {
            keepAlive.cancel(false);
            keepAlive = null;
        }
    }

    /** The interval of the keep-alive: a quarter of the server's idle timeout (at least 100 ms). */
    Duration keepAliveInterval() {
        return Duration.ofNanos(keepAliveNanos);
    }

    private void keepAliveTick() {
        if (failure != null) {
            keepAlive(false);
            return;
        }
        if (System.nanoTime() - lastSendNanos < keepAliveNanos) {
            return;
        }
        // A write in progress is traffic, and the one keep-alive thread must never wait for a socket.
        if (writeLock.tryLock()) {
            try {
                send(new Request.Ping(), ReplyCollector.single("PING", Reply.Ok.class, r -> null));
            } finally {
                writeLock.unlock();
            }
        }
    }

    private static void write(OutputStream out, Frame frame) throws IOException {
        ByteBuffer bytes = FrameCodec.encode(frame);
        out.write(bytes.array(), bytes.arrayOffset() + bytes.position(), bytes.remaining());
    }

    /** What to do on a socket timeout while reading: throw to give up, return to keep waiting. */
    private interface TimeoutTick {
        void tick() throws IOException;
    }

    /** Reads one whole frame; timeouts while waiting go to {@code onTimeout} (null: rethrow). */
    private static Frame readFrame(InputStream in, int maxFrame, TimeoutTick onTimeout) throws IOException {
        byte[] len = new byte[FrameCodec.LENGTH_FIELD];
        readFully(in, len, onTimeout);
        long length = ByteBuffer.wrap(len).getInt() & 0xffffffffL;
        if (length < FrameCodec.HEADER) {
            throw new StoreProtocolException(ErrorCode.MALFORMED_FRAME, "frame length " + length + " is below " + FrameCodec.HEADER);
        }
        if (length > maxFrame) {
            // Refused before a byte of it is read or any memory set aside for it.
            throw new StoreProtocolException(ErrorCode.FRAME_TOO_LARGE, "a frame of " + length + " bytes, above the " + maxFrame
                    + " bytes this client takes");
        }
        byte[] body = new byte[(int) length];
        readFully(in, body, onTimeout);
        return FrameCodec.decode(ByteBuffer.wrap(body));
    }

    /** Like DataInputStream.readFully, but a socket timeout does not lose the bytes already read. */
    private static void readFully(InputStream in, byte[] b, TimeoutTick onTimeout) throws IOException {
        int off = 0;
        while (off < b.length) {
            int n;
            try {
                n = in.read(b, off, b.length - off);
            } catch (SocketTimeoutException e) {
                if (onTimeout == null) {
                    throw e;
                }
                onTimeout.tick();
                continue;
            }
            if (n < 0) {
                throw new EOFException();
            }
            off += n;
        }
    }

    private void readLoop() {
        try {
            while (failure == null) {
                Frame frame = readFrame(in, maxFrame, this::checkStalled);
                lastReceiveNanos = System.nanoTime();
                dispatch(frame);
            }
        } catch (EOFException e) {
            fail(new StoreConnectionLostException("gpdedup-store at " + peer + " closed the connection"));
        } catch (StoreProtocolException e) {
            fail(new StoreClientException("gpdedup-store at " + peer + " sent a malformed frame: " + e.getMessage()));
        } catch (IOException e) {
            fail(new StoreConnectionLostException("lost the connection to gpdedup-store at " + peer + ": " + e.getMessage(), e));
        } catch (RuntimeException e) {
            fail(new StoreClientException("reading from gpdedup-store at " + peer + " failed: " + reason(e), e));
        }
    }

    private void dispatch(Frame frame) {
        if (frame.message() instanceof Reply.Error e && frame.requestId() == 0) {
            fail(new StoreServerException(e.code(), "gpdedup-store at " + peer + " closed the connection: " + e.code() + ": " + e.message()));
            return;
        }
        ReplyCollector<?> c = pending.get(frame.requestId());
        if (c == null) {
            // A reply to a request already failed (timeout) or never sent: nothing waits for it.
            return;
        }
        boolean done;
        if (frame.message() instanceof Reply.Error e) {
            c.future.completeExceptionally(new StoreServerException(e.code(), c.what + " failed: " + e.message()));
            done = true;
        } else {
            done = c.accept(frame);
        }
        if (done) {
            pending.remove(frame.requestId());
        }
    }

    /** Called on each socket timeout tick: a request waiting too long with the line silent kills the connection. */
    private void checkStalled() throws IOException {
        if (failure != null) {
            throw new IOException("closed");
        }
        long now = System.nanoTime();
        for (ReplyCollector<?> c : pending.values()) {
            if (c.timed && now - Math.max(lastReceiveNanos, c.sentAtNanos) > readTimeoutNanos) {
                fail(new StoreTimeoutException("gpdedup-store at " + peer + " sent nothing for " + readTimeoutNanos / 1_000_000_000L
                        + " s while " + c.what + " waited for its reply; connection dropped"));
                throw new IOException("timed out");
            }
        }
    }

    /** Drops a connection that still works but must not be used any more (its server is stopping). */
    void abandon(String why) {
        fail(new StoreConnectionLostException("dropped the connection to gpdedup-store at " + peer + ": " + why));
    }

    /** Marks the connection dead, fails everything waiting, closes the socket. First cause wins. */
    private void fail(StoreClientException cause) {
        synchronized (this) {
            if (failure != null) {
                return;
            }
            failure = cause;
            if (keepAlive != null) {
                keepAlive.cancel(false);
                keepAlive = null;
            }
        }
        closeQuietly(socket);
        List<ReplyCollector<?>> waiting = new ArrayList<>(pending.values());
        pending.clear();
        for (ReplyCollector<?> c : waiting) {
            c.future.completeExceptionally(cause);
        }
    }

    @Override
    public void close() {
        fail(new StoreClientException("client closed the connection to " + peer));
        if (Thread.currentThread() != reader) {
            try {
                reader.join(1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException ignored) {
            // Closing is all that is left to do with it.
        }
    }
}
