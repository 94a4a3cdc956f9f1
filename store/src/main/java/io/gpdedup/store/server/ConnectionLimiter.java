package io.gpdedup.store.server;

import io.gpdedup.store.protocol.ErrorCode;
import io.netty.channel.Channel;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Decides which connections the server keeps, so that no flood of sockets can take the
 * descriptors that commits, container writes, fsyncs and garbage collection need, nor keep the
 * backup hosts out. Caps: connections in total and per remote address (below the descriptor
 * limit, see {@link #forProcess}), and connections still waiting to log in (no AUTH yet) per
 * address. At a cap, the oldest connection of the same kind that is still waiting to log in is
 * closed to make room; logged-in connections, and those whose AUTH is being checked, are never
 * closed for a newcomer: the newcomer is refused instead. What it closes and refuses goes to the
 * {@link RefusalLog}.
 */
final class ConnectionLimiter {
    private static final System.Logger LOG = System.getLogger(ConnectionLimiter.class.getName());
    /** Descriptors left free for the engine (and the JVM) whatever the caps say. */
    static final int MIN_SPARE_DESCRIPTORS = 64;
    /** The open descriptors are counted again at most this often (a count reads /proc/self/fd). */
    private static final long RECOUNT_NANOS = 1_000_000_000L;
    /** Without a descriptor limit to go by (not a Unix JVM): the total cap when none is configured. */
    private static final int FALLBACK_MAX_CONNECTIONS = 10_000;

    private final int maxTotal;
    private final int maxPerAddress;
    private final int maxWaitingPerAddress;
    private final long descriptorLimit;
    private final LongSupplier openDescriptors;
    private final LongSupplier clock;
    private final RefusalLog refusals;
    private final StoreMetrics metrics;
    private final boolean plainText;
    private final Map<InetAddress, PerAddress> byAddress = new HashMap<>();
    private final LinkedHashSet<Admission> waiting = new LinkedHashSet<>();
    private int total;
    private long countedAt;
    private boolean descriptorsLow;

    private static final class PerAddress {
        int total;
        final LinkedHashSet<Admission> waiting = new LinkedHashSet<>();
    }

    /** One connection the limiter let in, from accept until it closes. */
    final class Admission {
        private final Channel channel;
        private final InetAddress address;
        private boolean isWaiting = true;
        private boolean gone;

        private Admission(Channel channel, InetAddress address) {
            this.channel = channel;
            this.address = address;
        }

        /** Its AUTH arrived: from now on it is never closed to make room. */
        void loginStarted() {
            synchronized (ConnectionLimiter.this) {
                if (isWaiting && !gone) {
                    isWaiting = false;
                    waiting.remove(this);
                    byAddress.get(address).waiting.remove(this);
                }
            }
        }

        /** Whether it is still waiting to log in (no AUTH yet). */
        boolean waitingForLogin() {
            synchronized (ConnectionLimiter.this) {
                return isWaiting && !gone;
            }
        }

        private void leave() {
            if (gone) {
                return;
            }
            gone = true;
            total--;
            PerAddress p = byAddress.get(address);
            p.total--;
            if (isWaiting) {
                waiting.remove(this);
                p.waiting.remove(this);
            }
            if (p.total == 0) {
                byAddress.remove(address);
            }
        }
    }

    /** @param plainText whether a refused connection can be told why in an ERROR frame (not behind TLS) */
    ConnectionLimiter(int maxTotal, int maxPerAddress, long descriptorLimit, LongSupplier openDescriptors, LongSupplier clock,
            RefusalLog refusals, StoreMetrics metrics, boolean plainText) {
        this.maxTotal = maxTotal;
        this.maxPerAddress = Math.min(maxPerAddress, maxTotal);
        this.maxWaitingPerAddress = Math.max(4, this.maxPerAddress / 4);
        this.descriptorLimit = descriptorLimit;
        this.openDescriptors = openDescriptors;
        this.clock = clock;
        this.refusals = refusals;
        this.metrics = metrics;
        this.plainText = plainText;
    }

    /**
     * Caps for this process: unless configured lower, connections may take the descriptors that
     * were free at start (the limit less those open now: the JVM's jars, the engine's containers)
     * less a quarter of them, at least {@link #MIN_SPARE_DESCRIPTORS}, kept for the engine and for
     * containers made later; one address may take half. While the server runs, the open
     * descriptors are counted again now and then, and when fewer than
     * {@link #MIN_SPARE_DESCRIPTORS} are left new connections are treated as over the total cap.
     */
    static ConnectionLimiter forProcess(ConnectionLimits limits, RefusalLog refusals, StoreMetrics metrics, boolean plainText) {
        long limit = Descriptors.limit();
        long open = Descriptors.open();
        int ceiling;
        if (limit > 0 && open >= 0) {
            long free = limit - open;
            ceiling = (int) Math.max(1, Math.min(Integer.MAX_VALUE, free - Math.max(MIN_SPARE_DESCRIPTORS, free / 4)));
        } else {
            ceiling = limits.maxConnections() == ConnectionLimits.AUTO ? FALLBACK_MAX_CONNECTIONS : limits.maxConnections();
        }
        int total = limits.maxConnections() == ConnectionLimits.AUTO ? ceiling : limits.maxConnections();
        if (total > ceiling) {
            LOG.log(System.Logger.Level.WARNING, "max-connections " + total + " would leave too few file descriptors (limit " + limit + ", "
                    + open + " open at start): using " + ceiling + "; raise the limit (ulimit -n, LimitNOFILE) for more");
            total = ceiling;
        }
        int perAddress = limits.maxConnectionsPerAddress() == ConnectionLimits.AUTO ? Math.max(1, total / 2) : limits.maxConnectionsPerAddress();
        ConnectionLimiter limiter = new ConnectionLimiter(total, perAddress, limit, Descriptors::open, System::nanoTime, refusals, metrics,
                plainText);
        LOG.log(System.Logger.Level.INFO, "connections: at most " + limiter.maxTotal + ", " + limiter.maxPerAddress + " per address, "
                + limiter.maxWaitingPerAddress + " per address waiting to log in; file descriptors: limit " + limit + ", " + open + " open");
        return limiter;
    }

    int maxTotal() {
        return maxTotal;
    }

    int maxPerAddress() {
        return maxPerAddress;
    }

    int maxWaitingPerAddress() {
        return maxWaitingPerAddress;
    }

    /**
     * Lets a just-accepted connection in, closing older ones still waiting to log in if that makes
     * room; or refuses it (closes it, after a {@code THROTTLED} error saying why where it can) and
     * returns null. The channel's pipeline must be complete.
     */
    Admission admit(Channel channel, InetAddress from) {
        List<Admission> evicted = new ArrayList<>();
        String refusal = null;
        Admission admitted = null;
        synchronized (this) {
            PerAddress p = byAddress.computeIfAbsent(from, a -> new PerAddress());
            if (p.waiting.size() >= maxWaitingPerAddress) {
                evicted.add(evictOldest(p.waiting));
            }
            if (p.total >= maxPerAddress && !p.waiting.isEmpty()) {
                evicted.add(evictOldest(p.waiting));
            }
            boolean full = total >= maxTotal || descriptorsLow();
            if (full && !waiting.isEmpty()) {
                evicted.add(evictOldest(waiting));
                full = total >= maxTotal;
            }
            if (p.total >= maxPerAddress) {
                refusal = "over max-connections-per-address " + maxPerAddress;
            } else if (full) {
                refusal = descriptorsLow ? "too few file descriptors left (limit " + descriptorLimit + ")" : "over max-connections " + maxTotal;
            } else {
                admitted = new Admission(channel, from);
                total++;
                p.total++;
                p.waiting.add(admitted);
                waiting.add(admitted);
            }
            if (p.total == 0) {
                byAddress.remove(from);
            }
        }
        for (Admission a : evicted) {
            refusals.note("connections closed while waiting to log in, to make room", a.address);
            close(a.channel, "connection closed before login: too many connections are waiting to log in");
        }
        if (refusal != null) {
            refusals.note("connections refused, " + refusal + ",", from);
            close(channel, "gpdedup-store refused the connection: " + refusal + "; try again later");
        }
        return admitted;
    }

    /** Closes the connection unless its AUTH has arrived within {@code timeout} of now. */
    void closeUnlessLoginStartsWithin(Admission a, Duration timeout) {
        a.channel.eventLoop().schedule(() -> {
            if (a.waitingForLogin() && a.channel.isActive()) {
                metrics.loginTimedOut();
                refusals.note("connections closed for not logging in within " + timeout.toSeconds() + " s,", a.address);
                say(a.channel, "gpdedup-store closed the connection: no login within " + timeout.toSeconds() + " s (login-timeout-seconds)");
            }
        }, timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    private void close(Channel channel, String why) {
        metrics.connectionRefused();
        say(channel, why);
    }

    private void say(Channel channel, String why) {
        if (plainText) {
            ProtocolErrorHandler.fail(channel, ErrorCode.THROTTLED, why);
        } else {
            channel.close();
        }
    }

    /** The connection closed (or was closed): its place is free. */
    synchronized void closed(Admission a) {
        a.leave();
    }

    synchronized int connections() {
        return total;
    }

    private Admission evictOldest(LinkedHashSet<Admission> set) {
        Iterator<Admission> it = set.iterator();
        Admission oldest = it.next();
        oldest.leave();
        return oldest;
    }

    /** Whether fewer than {@link #MIN_SPARE_DESCRIPTORS} are free, counted at most once a second. */
    private boolean descriptorsLow() {
        if (descriptorLimit <= 0) {
            return false;
        }
        long now = clock.getAsLong();
        if (countedAt == 0 || now - countedAt > RECOUNT_NANOS) {
            countedAt = now;
            long open = openDescriptors.getAsLong();
            descriptorsLow = open >= 0 && descriptorLimit - open < MIN_SPARE_DESCRIPTORS;
        }
        return descriptorsLow;
    }
}
