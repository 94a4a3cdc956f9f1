package io.gpdedup.store.server;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Slows password guessing per remote address: after a failed login, every further attempt from
 * that address waits its turn, each turn a delay that doubles with the consecutive failures
 * (capped), and the failure reply itself is held back by the same delay. A success or a quiet
 * period forgets the address.
 */
final class LoginThrottle {
    private static final int MAX_TRACKED = 10_000;

    private final long baseNanos;
    private final long maxNanos;
    private final long forgetNanos;
    private final LongSupplier clock;
    private final Map<InetAddress, State> states = new HashMap<>();

    private static final class State {
        int failures;
        long nextSlot;
        long lastFailure;
    }

    LoginThrottle(long baseNanos, long maxNanos, long forgetNanos, LongSupplier clock) {
        this.baseNanos = baseNanos;
        this.maxNanos = maxNanos;
        this.forgetNanos = forgetNanos;
        this.clock = clock;
    }

    static LoginThrottle standard() {
        return new LoginThrottle(200_000_000L, 10_000_000_000L, 600_000_000_000L, System::nanoTime);
    }

    /** How long an attempt from {@code address} must wait before its password is checked. */
    synchronized long reserveAttempt(InetAddress address) {
        State s = current(address);
        if (s == null) {
            return 0;
        }
        long now = clock.getAsLong();
        long slot = Math.max(now, s.nextSlot);
        s.nextSlot = slot + penalty(s.failures);
        return slot - now;
    }

    /** Records a failure; returns how long to hold back its reply. */
    synchronized long failed(InetAddress address) {
        long now = clock.getAsLong();
        State s = current(address);
        if (s == null) {
            if (states.size() >= MAX_TRACKED) {
                forgetQuiet(now);
            }
            s = new State();
            states.put(address, s);
        }
        s.failures = Math.min(s.failures + 1, 62);
        s.lastFailure = now;
        long penalty = penalty(s.failures);
        s.nextSlot = Math.max(s.nextSlot, now + penalty);
        return penalty;
    }

    synchronized void succeeded(InetAddress address) {
        states.remove(address);
    }

    private State current(InetAddress address) {
        State s = states.get(address);
        if (s != null && clock.getAsLong() - s.lastFailure > forgetNanos) {
            states.remove(address);
            return null;
        }
        return s;
    }

    private void forgetQuiet(long now) {
        states.values().removeIf(s -> now - s.lastFailure > forgetNanos);
        if (states.size() >= MAX_TRACKED) {
            // Under a flood from more addresses than we can track, start over rather than grow.
            states.clear();
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
}
