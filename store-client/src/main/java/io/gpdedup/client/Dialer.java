package io.gpdedup.client;

import io.gpdedup.protocol.wire.ErrorCode;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Opens a logged-in connection to whichever of the client's store addresses serves the unit: tries
 * them in order, the one that served last first, moving on from one that is away, does not hold
 * the unit now (NOT_SERVED) or is stopping; patient callers go round again with growing pauses.
 * A refused login stops it: a wrong user or password is wrong on every store of the unit.
 */
final class Dialer {
    private static final long FIRST_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long MAX_PAUSE_NANOS = TimeUnit.SECONDS.toNanos(5);
    /**
     * With several addresses a standby may be about to serve the unit (a failover takes seconds):
     * reached within 2 s of that, not 5, for a try each 2 s at the addresses left.
     */
    private static final long MAX_PAUSE_NANOS_SEVERAL = TimeUnit.SECONDS.toNanos(2);
    private static final long MIN_REPLACEMENT_TRY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /**
     * Per unit and address list, the address that served last: after a failover every new
     * connection of the process goes to the store that took over without first knocking at the old one.
     */
    private static final Map<String, StoreAddress> LAST_SERVED = new ConcurrentHashMap<>();

    /** What one address's failure means for this attempt. */
    private enum Verdict {
        /** Fail the attempt with it. */
        STOP,
        /** Try the others, and this one again next round. */
        LATER,
        /** Try the others, not this one again. */
        DROP
    }

    private Dialer() {
    }

    /** One round over the addresses, each try with the settings' own timeouts (the read timeout for the handshake). */
    static Connection once(ClientSettings settings) {
        return open(settings, null, () -> false, false, false);
    }

    /**
     * A new connection, tried with growing pauses (if {@code retry}) until its window has passed (or
     * {@code gaveUp} says so). {@code why}: what broke the connection it replaces, or null for a first
     * one. A first connection's window is the connect timeout, each try ending by it; a replacement's
     * is the reconnect timeout.
     */
    static Connection within(ClientSettings settings, Throwable why, BooleanSupplier gaveUp, boolean retry) {
        return open(settings, why, gaveUp, retry, true);
    }

    private static Connection open(ClientSettings settings, Throwable why, BooleanSupplier gaveUp, boolean retry, boolean bounded) {
        boolean first = why == null;
        Duration window = first ? settings.connectTimeout() : settings.reconnectTimeout();
        long deadline = System.nanoTime() + window.toNanos();
        long pause = FIRST_PAUSE_NANOS;
        List<StoreAddress> order = order(settings);
        boolean single = order.size() == 1;
        Map<StoreAddress, String> answers = new HashMap<>();
        Set<StoreAddress> dropped = new HashSet<>();
        StoreClientException last = null;
        while (!gaveUp.getAsBoolean()) {
            List<StoreAddress> round = order.stream().filter(a -> !dropped.contains(a)).toList();
            if (round.isEmpty()) {
                break;
            }
            for (int i = 0; i < round.size() && !gaveUp.getAsBoolean(); i++) {
                StoreAddress at = round.get(i);
                ClientSettings s = settings;
                Duration handshake = settings.readTimeout();
                if (bounded) {
                    // Each try ends by the deadline (a replacement's by at least 1 s) and leaves the addresses
                    // after it their share, so that a store whose host is gone cannot use up the whole window.
                    long left = deadline - System.nanoTime();
                    Duration bound = Duration.ofNanos(Math.max(first ? FIRST_PAUSE_NANOS : MIN_REPLACEMENT_TRY_NANOS, left / (round.size() - i)));
                    s = settings.withTimeouts(min(settings.connectTimeout(), bound), settings.readTimeout());
                    handshake = min(settings.readTimeout(), bound);
                }
                try {
                    Connection c = Connection.open(s, at, handshake);
                    LAST_SERVED.put(key(settings), at);
                    return c;
                } catch (StoreClientException e) {
                    Verdict v = verdict(e, first);
                    // One address keeps the messages it always had: what that store said.
                    if (v == Verdict.STOP || single && (v == Verdict.DROP || !retry)) {
                        throw e;
                    }
                    last = e;
                    answers.put(at, answer(at, e, s.connectTimeout(), handshake));
                    if (v == Verdict.DROP) {
                        dropped.add(at);
                    }
                }
            }
            long left = deadline - System.nanoTime();
            if (!retry || left <= 0 || dropped.size() == order.size()) {
                break;
            }
            try {
                TimeUnit.NANOSECONDS.sleep(Math.min(pause, left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            pause = Math.min(2 * pause, single ? MAX_PAUSE_NANOS : MAX_PAUSE_NANOS_SEVERAL);
        }
        String within = Connection.seconds(window);
        String tried = single ? (last == null ? null : last.getMessage()) : summary(settings, answers);
        if (first) {
            String message = (tried == null ? "cannot connect to gpdedup-store at " + order.get(0) : tried) + (retry ? "; tried for " + within : "");
            throw new StoreConnectException(message, last);
        }
        throw new StoreConnectionLostException(String.valueOf(why.getMessage()) + "; no new connection within " + within
                + (tried == null ? "" : " (last try: " + tried + ")"));
    }

    /**
     * A first login that is throttled (guessing goes on) fails at once, as does one that is
     * refused; one that is never answered drops that address, a store that is up and stays silent
     * not being one that is restarting. A replacement waits both out.
     */
    private static Verdict verdict(StoreClientException e, boolean first) {
        if (e instanceof StoreAuthException) {
            return Verdict.STOP;
        }
        if (e instanceof StoreServerException r) {
            if (r.code() == ErrorCode.NOT_SERVED || r.code() == ErrorCode.SHUTTING_DOWN) {
                return Verdict.LATER;
            }
            if (r.code() == ErrorCode.THROTTLED) {
                return first ? Verdict.STOP : Verdict.LATER;
            }
            return Verdict.DROP;
        }
        if (e instanceof StoreTimeoutException) {
            return first ? Verdict.DROP : Verdict.LATER;
        }
        if (e instanceof StoreConnectException c) {
            return c.lasting() ? Verdict.DROP : Verdict.LATER;
        }
        return e instanceof StoreConnectionLostException ? Verdict.LATER : Verdict.DROP;
    }

    /** What the store at {@code at} answered, as the rest of "node-b:7411 ..." in a message. */
    private static String answer(StoreAddress at, StoreClientException e, Duration connectTimeout, Duration handshake) {
        if (e instanceof StoreServerException r && r.code() == ErrorCode.NOT_SERVED) {
            return "does not hold it now (standby)";
        }
        if (e instanceof StoreServerException r && r.code() == ErrorCode.SHUTTING_DOWN) {
            return "is shutting down";
        }
        if (e instanceof StoreServerException r && r.code() == ErrorCode.THROTTLED) {
            return "throttles logins";
        }
        if (e instanceof StoreTimeoutException) {
            return "did not answer the handshake within " + Connection.seconds(handshake);
        }
        Throwable cause = e.getCause();
        if (cause instanceof ConnectException) {
            return "refused the connection";
        }
        if (cause instanceof UnknownHostException) {
            return "is an unknown host";
        }
        if (cause instanceof SocketTimeoutException) {
            return "did not accept the connection within " + Connection.seconds(connectTimeout);
        }
        String message = String.valueOf(e.getMessage());
        String named = "gpdedup-store at " + at + " ";
        if (message.startsWith(named)) {
            return message.substring(named.length());
        }
        return "failed: " + message.replace("gpdedup-store at " + at, "the store");
    }

    /** "no store serves unit 'prod': node-a:7411 refused the connection; node-b:7411 does not hold it now (standby)". */
    private static String summary(ClientSettings settings, Map<StoreAddress, String> answers) {
        List<String> parts = new ArrayList<>();
        for (StoreAddress a : settings.addresses()) {
            String answer = answers.get(a);
            if (answer != null) {
                parts.add(a + " " + answer);
            }
        }
        return "no store serves unit '" + settings.unit() + "'" + (parts.isEmpty() ? "" : ": " + String.join("; ", parts));
    }

    /** The addresses from the one that served last, round to the one before it. */
    private static List<StoreAddress> order(ClientSettings settings) {
        List<StoreAddress> all = settings.addresses();
        StoreAddress last = LAST_SERVED.get(key(settings));
        int start = last == null ? 0 : Math.max(0, all.indexOf(last));
        List<StoreAddress> out = new ArrayList<>(all.size());
        for (int i = 0; i < all.size(); i++) {
            out.add(all.get((start + i) % all.size()));
        }
        return out;
    }

    private static String key(ClientSettings settings) {
        return settings.unit() + "@" + StoreAddress.text(settings.addresses());
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
