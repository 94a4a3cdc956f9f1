package io.gpdedup.store.auth;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Slows password guessing without locking out the backup hosts. Failed logins are counted per
 * (address, user), per user and per address. Each failure's reply is held back by a delay that
 * doubles with the consecutive failures of the worst of the three (capped), and while a scope has
 * failures on record only a few attempts of it may be in flight (checked, or waiting for their
 * held-back reply): one per (address, user), a few per user and per address. An attempt beyond
 * that is refused at once ("login throttled") without its password being checked, so a guesser
 * gets a handful of guesses per delay, and nothing waits in a queue: once the held-back replies
 * are out, the next attempt is checked at once, and a right password gets in.
 *
 * <p>An (address, user) that logged in successfully, with no failure on record then, and has not
 * failed since is known good: the
 * per-user and per-address limits do not apply to it, so guessing a user's password from
 * elsewhere, or other users' passwords from a shared host, does not lock that user's backup hosts
 * out. It still pays every failure of its own. Known-good attempts also do not count toward
 * {@code maxPending}, the bound on password checks in flight from everyone else.
 */
public final class LoginThrottle {
    /** In-flight attempts of an (address, user) with failures on record. */
    static final int SUSPECT_PAIR_IN_FLIGHT = 1;
    /** In-flight attempts of a user, or of an address, with failures on record. */
    static final int SUSPECT_SCOPE_IN_FLIGHT = 4;
    private static final int MAX_TRACKED = 10_000;

    private final long baseNanos;
    private final long maxNanos;
    private final long forgetNanos;
    private final int maxPending;
    private final LongSupplier clock;
    private final Map<Pair, Scope> pairs = new HashMap<>();
    private final Map<String, Scope> users = new HashMap<>();
    private final Map<InetAddress, Scope> addresses = new HashMap<>();
    private final Map<Pair, Long> knownGood = new HashMap<>();
    private int pending;

    private record Pair(InetAddress address, String user) {
    }

    private static final class Scope {
        int failures;
        long lastFailure;
        int inFlight;
    }

    /** The outcome of {@link #admit}: a ticket to check the password now, or why not. */
    sealed interface Decision permits Admitted, Refused {
    }

    record Admitted(Ticket ticket) implements Decision {
    }

    /** @param message starts with "login throttled" and says whose failures and when to try again */
    record Refused(String message) implements Decision {
    }

    LoginThrottle(long baseNanos, long maxNanos, long forgetNanos, int maxPending, LongSupplier clock) {
        this.baseNanos = baseNanos;
        this.maxNanos = maxNanos;
        this.forgetNanos = forgetNanos;
        this.maxPending = maxPending;
        this.clock = clock;
    }

    /** 200 ms after the first failure, doubling up to 10 s; forgotten after 10 minutes without one. */
    public static LoginThrottle standard(int maxPending) {
        return new LoginThrottle(200_000_000L, 10_000_000_000L, 600_000_000_000L, maxPending, System::nanoTime);
    }

    /** Whether an attempt of {@code user} from {@code address} may have its password checked now. */
    synchronized Decision admit(InetAddress address, String user) {
        long now = clock.getAsLong();
        Pair key = new Pair(address, user);
        Scope pair = live(pairs, key, now);
        boolean good = knownGood.containsKey(key); // a failure of the pair removes it
        if (pair != null && pair.failures > 0 && pair.inFlight >= SUSPECT_PAIR_IN_FLIGHT) {
            return refused(key, now, "too many failed logins for user '" + user + "' from " + address.getHostAddress());
        }
        if (!good) {
            Scope u = live(users, user, now);
            if (u != null && u.failures > 0 && u.inFlight >= SUSPECT_SCOPE_IN_FLIGHT) {
                return refused(key, now, "too many failed logins for user '" + user + "'");
            }
            Scope a = live(addresses, address, now);
            if (a != null && a.failures > 0 && a.inFlight >= SUSPECT_SCOPE_IN_FLIGHT) {
                return refused(key, now, "too many failed logins from " + address.getHostAddress());
            }
            if (pending >= maxPending) {
                return new Refused("login throttled: " + pending + " logins are already being checked; try again in a few seconds");
            }
            pending++;
        }
        Ticket t = new Ticket(key, good);
        for (Scope s : t.inFlightScopes()) {
            s.inFlight++;
        }
        return new Admitted(t);
    }

    /** One admitted attempt: say how it ended, then release it once its reply is out. */
    final class Ticket {
        private final Pair key;
        private final boolean counted;
        private boolean released;

        private Ticket(Pair key, boolean good) {
            this.key = key;
            this.counted = !good;
        }

        /** Where the attempt counts as in flight: a known-good pair's only in its own scope. */
        private List<Scope> inFlightScopes() {
            List<Scope> l = new ArrayList<>(3);
            l.add(track(pairs, key));
            if (counted) {
                l.add(track(users, key.user()));
                l.add(track(addresses, key.address()));
            }
            return l;
        }

        /**
         * The password was right: the pair's failures are forgotten. It becomes known good only if
         * it had none: a right password between wrong ones (a guesser on the backup host itself)
         * must not lift the per-user and per-address limits from the guesses that follow.
         */
        void succeeded() {
            synchronized (LoginThrottle.this) {
                Scope s = pairs.get(key);
                boolean clean = s == null || s.failures == 0;
                if (s != null) {
                    s.failures = 0;
                }
                if (!clean) {
                    return;
                }
                if (knownGood.size() >= MAX_TRACKED) {
                    knownGood.clear();
                }
                knownGood.put(key, clock.getAsLong());
            }
        }

        /** Records a failure in each scope; returns how long to hold the reply back (release after it). */
        long failed() {
            synchronized (LoginThrottle.this) {
                long now = clock.getAsLong();
                knownGood.remove(key);
                long delay = 0;
                for (Scope s : List.of(track(pairs, key), track(users, key.user()), track(addresses, key.address()))) {
                    s.failures = Math.min(s.failures + 1, 62);
                    s.lastFailure = now;
                    delay = Math.max(delay, penalty(s.failures));
                }
                return delay;
            }
        }

        /** Ends the attempt's time in flight; idempotent. */
        void release() {
            synchronized (LoginThrottle.this) {
                if (released) {
                    return;
                }
                released = true;
                if (counted) {
                    pending--;
                }
                leave(pairs, key);
                if (counted) {
                    leave(users, key.user());
                    leave(addresses, key.address());
                }
            }
        }
    }

    /** Refuses; the time to try again in is the longest delay a failure of this user from this address would now get. */
    private Refused refused(Pair key, long now, String why) {
        long delay = 0;
        for (Scope s : new Scope[] {live(pairs, key, now), live(users, key.user(), now), live(addresses, key.address(), now)}) {
            if (s != null) {
                delay = Math.max(delay, penalty(s.failures));
            }
        }
        long seconds = Math.max(1, (delay + 999_999_999L) / 1_000_000_000L);
        return new Refused("login throttled: " + why + "; try again in " + seconds + " s");
    }

    /** The scope's state, or null when it has none or its failures are old enough to forget. */
    private <K> Scope live(Map<K, Scope> map, K key, long now) {
        Scope s = map.get(key);
        if (s != null && s.failures > 0 && s.inFlight == 0 && now - s.lastFailure > forgetNanos) {
            map.remove(key);
            return null;
        }
        return s;
    }

    private <K> Scope track(Map<K, Scope> map, K key) {
        Scope s = map.get(key);
        if (s == null) {
            if (map.size() >= MAX_TRACKED) {
                forgetIdle(map);
            }
            s = new Scope();
            map.put(key, s);
        }
        return s;
    }

    private <K> void leave(Map<K, Scope> map, K key) {
        Scope s = map.get(key);
        if (s == null) {
            return;
        }
        s.inFlight--;
        if (s.inFlight <= 0 && s.failures == 0) {
            map.remove(key);
        }
    }

    /** Under a flood from more names or addresses than we track: forget what is quiet, oldest failures first. */
    private <K> void forgetIdle(Map<K, Scope> map) {
        long now = clock.getAsLong();
        map.values().removeIf(s -> s.inFlight == 0 && now - s.lastFailure > forgetNanos);
        if (map.size() >= MAX_TRACKED) {
            map.values().removeIf(s -> s.inFlight == 0);
        }
    }

    long penalty(int failures) {
        if (failures <= 0) {
            return 0;
        }
        int shift = Math.min(failures - 1, 30);
        long p = baseNanos << shift;
        return p < 0 || p > maxNanos ? maxNanos : p;
    }

    /** Password checks admitted and not yet released, not counting known-good pairs (for tests and metrics). */
    synchronized int pending() {
        return pending;
    }
}
