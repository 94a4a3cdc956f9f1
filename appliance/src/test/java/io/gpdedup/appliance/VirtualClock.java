package io.gpdedup.appliance;

import java.util.concurrent.locks.Condition;

/** Time that jumps ahead instead of waiting: single-threaded throttle tests, no wall clock. */
final class VirtualClock implements ApplianceClock {
    long now = 1_000_000_000L;

    @Override
    public long nanos() {
        return now;
    }

    @Override
    public void await(Condition c, long nanos) {
        now += nanos;
    }

    @Override
    public void sleepUntil(long deadline) {
        now = Math.max(now, deadline);
    }

    void advanceSeconds(double s) {
        now += (long) (s * 1e9);
    }

    double seconds(long fromNanos) {
        return (now - fromNanos) / 1e9;
    }
}
