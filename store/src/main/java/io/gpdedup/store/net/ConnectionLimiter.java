package io.gpdedup.store.net;

import io.gpdedup.store.config.ConnectionLimits;
import io.gpdedup.store.log.RefusalLog;
import io.gpdedup.store.metrics.StoreMetrics;
import io.netty.channel.Channel;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Decides which connections the server keeps, so that no flood of sockets can take the
 * descriptors that commits, container writes, fsyncs and garbage collection need, nor keep the
 * backup hosts out. It runs on the accepting thread, before a connection is handed to an event
 * loop, so a refused socket is closed at once. Caps: connections in total and per remote address
 * (below the descriptor limit, see {@link #forProcess}), and connections still waiting to log in
 * (no AUTH yet) per address. At a cap, the oldest connection of the same kind that is still
 * waiting to log in is closed to make room; logged-in connections, and those whose AUTH is being
 * checked, are never closed for a newcomer: the newcomer is refused instead. A connection counts
 * until its socket is really closed, so closes still under way (at most
 * {@link #CLOSING_SLACK} beyond the cap) cannot push the descriptors past the limit. What it
 * closes and refuses goes to the {@link RefusalLog}; the clients just see the connection close.
 */
public final class ConnectionLimiter {
    private static final System.Logger LOG = System.getLogger(ConnectionLimiter.class.getName());
    /** Descriptors left free for the engine (and the JVM) whatever the caps say. */
    static final int MIN_SPARE_DESCRIPTORS = 64;
    /** Sockets being closed to make room that may still hold their descriptor beyond the cap. */
    static final int CLOSING_SLACK = MIN_SPARE_DESCRIPTORS / 2;
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
    private final Map<InetAddress, PerAddress> byAddress = new HashMap<>();
    private final LinkedHashSet<Admission> waiting = new LinkedHashSet<>();
    /** Sockets admitted and not yet closed, and of those the ones being closed to make room. */
    private int open;
    private int closing;
    private long countedAt;
    private boolean descriptorsLow;

    private static final class PerAddress {
        int open;
        int closing;
        final LinkedHashSet<Admission> waiting = new LinkedHashSet<>();
    }

    /** One connection the limiter let in, from accept until its socket is closed. */
    public final class Admission {
        private final Channel channel;
        private final InetAddress address;
        private boolean isWaiting = true;
        private boolean evicted;
        private boolean closed;

        private Admission(Channel channel, InetAddress address) {
            this.channel = channel;
            this.address = address;
        }

        /** Its AUTH arrived: from now on it is never closed to make room. */
        public void loginStarted() {
            synchronized (ConnectionLimiter.this) {
                if (isWaiting) {
                    stopWaiting();
                }
            }
        }

        /** Whether it is still waiting to log in (no AUTH yet, not being closed). */
        boolean waitingForLogin() {
            synchronized (ConnectionLimiter.this) {
                return isWaiting;
            }
        }

        private void stopWaiting() {
            isWaiting = false;
            waiting.remove(this);
            byAddress.get(address).waiting.remove(this);
        }
    }

    ConnectionLimiter(int maxTotal, int maxPerAddress, long descriptorLimit, LongSupplier openDescriptors, LongSupplier clock,
            RefusalLog refusals, StoreMetrics metrics) {
        this.maxTotal = maxTotal;
        this.maxPerAddress = Math.min(maxPerAddress, maxTotal);
        this.maxWaitingPerAddress = Math.max(4, this.maxPerAddress / 4);
        this.descriptorLimit = descriptorLimit;
        this.openDescriptors = openDescriptors;
        this.clock = clock;
        this.refusals = refusals;
        this.metrics = metrics;
    }

    /**
     * Caps for this process: unless configured lower, connections may take the descriptors that
     * were free at start (the limit less those open now: the JVM's jars, the engine's containers)
     * less a quarter of them, at least {@link #MIN_SPARE_DESCRIPTORS}, kept for the engine and for
     * containers made later; one address may take half. While the server runs, the open
     * descriptors are counted again now and then, and when fewer than
     * {@link #MIN_SPARE_DESCRIPTORS} are left new connections are treated as over the total cap.
     */
    static ConnectionLimiter forProcess(ConnectionLimits limits, RefusalLog refusals, StoreMetrics metrics) {
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
        ConnectionLimiter limiter = new ConnectionLimiter(total, perAddress, limit, Descriptors::open, System::nanoTime, refusals, metrics);
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
     * room; or refuses it and returns null (the caller closes it at once).
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
            if (p.open - p.closing >= maxPerAddress && !p.waiting.isEmpty()) {
                evicted.add(evictOldest(p.waiting));
            }
            boolean full = open - closing >= maxTotal || descriptorsLow();
            if (full && !waiting.isEmpty()) {
                evicted.add(evictOldest(waiting));
                full = open - closing >= maxTotal;
            }
            if (p.open - p.closing >= maxPerAddress) {
                refusal = "over max-connections-per-address " + maxPerAddress;
            } else if (full) {
                refusal = descriptorsLow ? "too few file descriptors left (limit " + descriptorLimit + ")" : "over max-connections " + maxTotal;
            } else if (open >= maxTotal + CLOSING_SLACK) {
                refusal = "too many connections still closing";
            } else {
                admitted = new Admission(channel, from);
                open++;
                p.open++;
                p.waiting.add(admitted);
                waiting.add(admitted);
            }
            if (p.open == 0) {
                byAddress.remove(from);
            }
        }
        for (Admission a : evicted) {
            refusals.note("connections closed while waiting to log in, to make room", a.address);
            metrics.connectionRefused();
            a.channel.close();
        }
        if (refusal != null) {
            refusals.note("connections refused, " + refusal + ",", from);
            metrics.connectionRefused();
        }
        return admitted;
    }

    /** Closes the connection unless its AUTH has arrived within {@code timeout} of now. */
    void closeUnlessLoginStartsWithin(Admission a, Duration timeout) {
        a.channel.eventLoop().schedule(() -> {
            if (a.waitingForLogin() && a.channel.isActive()) {
                metrics.loginTimedOut();
                refusals.note("connections closed for not logging in within " + timeout.toSeconds() + " s,", a.address);
                a.channel.close();
            }
        }, timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    /** The connection's socket is closed: its place is free. */
    synchronized void closed(Admission a) {
        if (a.closed) {
            return;
        }
        a.closed = true;
        if (a.isWaiting) {
            a.stopWaiting();
        }
        PerAddress p = byAddress.get(a.address);
        open--;
        p.open--;
        if (a.evicted) {
            closing--;
            p.closing--;
        }
        if (p.open == 0) {
            byAddress.remove(a.address);
        }
    }

    synchronized int connections() {
        return open;
    }

    private Admission evictOldest(LinkedHashSet<Admission> set) {
        Admission oldest = set.iterator().next();
        oldest.stopWaiting();
        oldest.evicted = true;
        closing++;
        byAddress.get(oldest.address).closing++;
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
