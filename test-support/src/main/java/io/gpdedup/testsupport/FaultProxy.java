package io.gpdedup.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * An HTTP/1.1 proxy for the S3 protocol that injects faults between a client and a real S3
 * server, seeded and bounded: error replies (503 SlowDown, 500), delays, connections reset before
 * the request reaches the server or after it took effect (the reply is lost), replies cut off
 * half-way, and stalls longer than a client's timeout. It can also refuse every write (PUT, POST,
 * DELETE) while reads pass, hold the writes to some keys and forward them later (a request that
 * lands long after its client sent it), or drop every connection (the server unreachable). Listens
 * on 127.0.0.1 only.
 */
public final class FaultProxy implements AutoCloseable {
    /** What can happen to one request. */
    public enum Fault {
        /** 503 with S3's SlowDown code, not forwarded. */
        SLOW_DOWN,
        /** 500 InternalError, not forwarded. */
        SERVER_ERROR,
        /** Forwarded after a pause of up to {@link Plan#maxDelayMillis}. */
        DELAY,
        /** The connection is reset before the request is forwarded. */
        RESET_BEFORE,
        /** Forwarded (it takes effect), then the connection is reset instead of the reply. */
        RESET_AFTER,
        /** Forwarded; the reply is cut off after half its body. */
        CUT_REPLY,
        /** Nothing is answered for {@link Plan#stallMillis}, then the connection is closed. */
        STALL
    }

    /**
     * Which faults, how often, on which requests. {@code probability} is per request; at most
     * {@code maxFaults} faults are injected in all, then every request passes.
     */
    public record Plan(long seed, double probability, Set<Fault> faults, boolean writesOnly, int maxFaults, long maxDelayMillis,
            long stallMillis) {
        public static Plan none() {
            return new Plan(0, 0, Set.of(), false, 0, 0, 0);
        }

        public static Plan of(long seed, double probability, int maxFaults, Set<Fault> faults) {
            return new Plan(seed, probability, faults, false, maxFaults, 1500, 15_000);
        }

        public Plan onlyWrites() {
            return new Plan(seed, probability, faults, true, maxFaults, maxDelayMillis, stallMillis);
        }
    }

    private final ServerSocket listener;
    private final InetSocketAddress upstream;
    private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "fault-proxy");
        t.setDaemon(true);
        return t;
    });
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();
    private final Map<Fault, Integer> injected = new EnumMap<>(Fault.class); // guarded by this
    private final Map<String, Integer> requests = new ConcurrentHashMap<>();
    private Plan plan = Plan.none(); // guarded by this
    private Random random = new Random(0); // guarded by this
    private int faultsLeft; // guarded by this
    private volatile boolean refuseWrites;
    private String holdPart; // guarded by this
    private int heldCount; // guarded by this
    private volatile boolean down;
    private volatile boolean closed;

    private FaultProxy(ServerSocket listener, InetSocketAddress upstream) {
        this.listener = listener;
        this.upstream = upstream;
    }

    /** Starts a proxy on a free loopback port in front of {@code upstreamPort} on 127.0.0.1. */
    public static FaultProxy start(int upstreamPort) throws IOException {
        ServerSocket s = new ServerSocket();
        s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        FaultProxy p = new FaultProxy(s, new InetSocketAddress(InetAddress.getLoopbackAddress(), upstreamPort));
        p.threads.execute(p::acceptLoop);
        return p;
    }

    public int port() {
        return listener.getLocalPort();
    }

    public String endpoint() {
        return "http://127.0.0.1:" + port();
    }

    /** Replaces the fault plan (and re-seeds it); counters of injected faults are kept. */
    public synchronized void plan(Plan p) {
        plan = p;
        random = new Random(p.seed());
        faultsLeft = p.maxFaults();
    }

    /** While set, every PUT, POST and DELETE is answered 503 SlowDown; reads pass. */
    public void refuseWrites(boolean on) {
        refuseWrites = on;
    }

    /** While set, every connection is closed at once, and open ones are cut: the server looks unreachable. */
    public void down(boolean on) {
        down = on;
        if (on) {
            for (Socket s : open) {
                closeQuietly(s);
            }
        }
    }

    /**
     * From now on every write (PUT, POST, DELETE) whose request line contains {@code keyPart} is
     * read in full and then held, neither forwarded nor answered, until {@link #release()}.
     */
    public synchronized void hold(String keyPart) {
        holdPart = keyPart;
    }

    /** Writes held so far. */
    public synchronized int held() {
        return heldCount;
    }

    /** Forwards every held write (it takes effect now, whether its client still waits or not) and holds no more. */
    public synchronized void release() {
        holdPart = null;
        notifyAll();
    }

    private synchronized void waitIfHeld(Head req, boolean write) throws InterruptedException {
        if (holdPart == null || !write || !req.first().contains(holdPart)) {
            return;
        }
        heldCount++;
        while (holdPart != null && !closed) {
            wait(100);
        }
    }

    public synchronized Map<Fault, Integer> injected() {
        return new EnumMap<>(injected);
    }

    public synchronized int injectedTotal() {
        int n = 0;
        for (int v : injected.values()) {
            n += v;
        }
        return n;
    }

    /** Requests seen, by method. */
    public Map<String, Integer> requests() {
        return Map.copyOf(requests);
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return;
            }
            if (down) {
                reset(client);
                continue;
            }
            open.add(client);
            threads.execute(() -> serve(client));
        }
    }

    private void serve(Socket client) {
        Socket server = null;
        try {
            client.setTcpNoDelay(true);
            InputStream cin = client.getInputStream();
            OutputStream cout = client.getOutputStream();
            while (!closed && !down) {
                Head req = Head.read(cin);
                if (req == null) {
                    return;
                }
                requests.merge(req.method(), 1, Integer::sum);
                boolean write = !req.method().equals("GET") && !req.method().equals("HEAD");
                Fault fault = refuseWrites && write ? Fault.SLOW_DOWN : draw(write);
                boolean expects = "100-continue".equalsIgnoreCase(req.header("expect"));
                if (fault == Fault.SLOW_DOWN || fault == Fault.SERVER_ERROR) {
                    // Answered without reading the body; the connection closes after it so nothing is out of step.
                    errorReply(cout, fault);
                    return;
                }
                if (fault == Fault.RESET_BEFORE) {
                    reset(client);
                    return;
                }
                if (fault == Fault.STALL) {
                    stall(client);
                    return;
                }
                if (expects) {
                    cout.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    cout.flush();
                }
                byte[] body = readBody(cin, req, false);
                waitIfHeld(req, write);
                if (fault == Fault.DELAY) {
                    long ms = 1 + (long) (nextDouble() * Math.max(1, currentPlan().maxDelayMillis()));
                    Thread.sleep(ms);
                }
                if (server == null || server.isClosed()) {
                    server = new Socket();
                    server.connect(upstream, 10_000);
                    server.setTcpNoDelay(true);
                    open.add(server);
                }
                OutputStream sout = server.getOutputStream();
                sout.write(req.encodeWithout("expect"));
                sout.write(body);
                sout.flush();
                InputStream sin = server.getInputStream();
                Head resp = Head.read(sin);
                if (resp == null) {
                    throw new EOFException("the S3 server closed the connection without a reply");
                }
                byte[] respBody = resp.hasNoBody(req.method()) ? new byte[0] : readBody(sin, resp, true);
                if (fault == Fault.RESET_AFTER) {
                    reset(client);
                    return;
                }
                cout.write(resp.encodeWithout());
                if (fault == Fault.CUT_REPLY) {
                    cout.write(respBody, 0, respBody.length / 2);
                    cout.flush();
                    reset(client);
                    return;
                }
                cout.write(respBody);
                cout.flush();
                if ("close".equalsIgnoreCase(resp.header("connection")) || "close".equalsIgnoreCase(req.header("connection"))) {
                    return;
                }
            }
        } catch (IOException e) {
            // The client or the server went away (or we cut it): nothing to answer.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            closeQuietly(client);
            open.remove(client);
            if (server != null) {
                closeQuietly(server);
                open.remove(server);
            }
        }
    }

    private synchronized Plan currentPlan() {
        return plan;
    }

    private synchronized double nextDouble() {
        return random.nextDouble();
    }

    private synchronized Fault draw(boolean write) {
        if (faultsLeft <= 0 || plan.faults().isEmpty() || (plan.writesOnly() && !write)) {
            return null;
        }
        if (random.nextDouble() >= plan.probability()) {
            return null;
        }
        List<Fault> kinds = new ArrayList<>(plan.faults());
        kinds.sort(null);
        Fault f = kinds.get(random.nextInt(kinds.size()));
        faultsLeft--;
        injected.merge(f, 1, Integer::sum);
        return f;
    }

    private void stall(Socket client) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(currentPlan().stallMillis());
        while (System.nanoTime() < until && !closed && !client.isClosed()) {
            Thread.sleep(50);
        }
    }

    private static void errorReply(OutputStream out, Fault f) throws IOException {
        String code = f == Fault.SLOW_DOWN ? "SlowDown" : "InternalError";
        int status = f == Fault.SLOW_DOWN ? 503 : 500;
        String reason = f == Fault.SLOW_DOWN ? "Slow Down" : "Internal Server Error";
        byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>injected by the fault proxy"
                + "</Message><RequestId>fault</RequestId></Error>").getBytes(StandardCharsets.UTF_8);
        out.write(("HTTP/1.1 " + status + " " + reason + "\r\nContent-Type: application/xml\r\nContent-Length: " + body.length
                + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
    }

    /** The body per Content-Length, or chunked (kept chunked, framing and all), or none; a reply without either runs to EOF. */
    private static byte[] readBody(InputStream in, Head h, boolean reply) throws IOException {
        String te = h.header("transfer-encoding");
        if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            while (true) {
                String sizeLine = readLine(in);
                out.write((sizeLine + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                int semi = sizeLine.indexOf(';');
                int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
                if (size == 0) {
                    String line;
                    do {
                        line = readLine(in);
                        out.write((line + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    } while (!line.isEmpty());
                    return out.toByteArray();
                }
                out.write(in.readNBytes(size));
                out.write((readLine(in) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            }
        }
        String cl = h.header("content-length");
        if (cl != null) {
            long n = Long.parseLong(cl.trim());
            byte[] b = in.readNBytes((int) n);
            if (b.length != n) {
                throw new EOFException("body cut short");
            }
            return b;
        }
        return reply ? in.readAllBytes() : new byte[0];
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new EOFException("connection closed mid-line");
            }
            if (c == '\n') {
                int n = sb.length();
                return n > 0 && sb.charAt(n - 1) == '\r' ? sb.substring(0, n - 1) : sb.toString();
            }
            sb.append((char) c);
        }
    }

    /** A request or status line and its headers, kept in order. */
    private record Head(String first, List<String[]> headers) {
        static Head read(InputStream in) throws IOException {
            String first;
            try {
                first = readLine(in);
            } catch (EOFException e) {
                return null;
            }
            List<String[]> hs = new ArrayList<>();
            while (true) {
                String line = readLine(in);
                if (line.isEmpty()) {
                    return new Head(first, hs);
                }
                int colon = line.indexOf(':');
                hs.add(new String[] {line.substring(0, colon), line.substring(colon + 1).trim()});
            }
        }

        String method() {
            int sp = first.indexOf(' ');
            return sp < 0 ? first : first.substring(0, sp);
        }

        String header(String name) {
            for (String[] h : headers) {
                if (h[0].equalsIgnoreCase(name)) {
                    return h[1];
                }
            }
            return null;
        }

        boolean hasNoBody(String requestMethod) {
            String[] parts = first.split(" ");
            int status = parts.length > 1 ? Integer.parseInt(parts[1]) : 200;
            return requestMethod.equals("HEAD") || status == 204 || status == 304 || (status >= 100 && status < 200);
        }

        byte[] encodeWithout(String... dropped) {
            StringBuilder sb = new StringBuilder(first).append("\r\n");
            outer:
            for (String[] h : headers) {
                for (String d : dropped) {
                    if (h[0].equalsIgnoreCase(d)) {
                        continue outer;
                    }
                }
                sb.append(h[0]).append(": ").append(h[1]).append("\r\n");
            }
            return sb.append("\r\n").toString().getBytes(StandardCharsets.ISO_8859_1);
        }
    }

    private static void reset(Socket s) {
        try {
            s.setSoLinger(true, 0);
        } catch (SocketException e) {
            // Closed already.
        }
        closeQuietly(s);
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // Nothing left to do with it.
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            listener.close();
        } catch (IOException e) {
            // Stopping anyway.
        }
        for (Socket s : open) {
            closeQuietly(s);
        }
        threads.shutdownNow();
    }
}
