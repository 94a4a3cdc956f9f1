package io.gpdedup.appliance;

import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;

/**
 * Time for the throttle: reading it and waiting on it. The real one is {@link System#nanoTime};
 * tests use a virtual one that jumps ahead instead of waiting.
 */
interface ApplianceClock {
    long nanos();

    /** Waits on {@code c} (its lock held) for at most {@code nanos}, or until signalled. */
    void await(Condition c, long nanos) throws InterruptedException;

    /** Sleeps until {@link #nanos} reaches {@code deadline}. */
    void sleepUntil(long deadline) throws InterruptedException;

    ApplianceClock SYSTEM = new ApplianceClock() {
        @Override
        public long nanos() {
            return System.nanoTime();
        }

        @Override
        public void await(Condition c, long nanos) throws InterruptedException {
            c.awaitNanos(nanos);
        }

        @Override
        public void sleepUntil(long deadline) throws InterruptedException {
            long left;
            while ((left = deadline - System.nanoTime()) > 0) {
                LockSupport.parkNanos(left);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
        }
    };
}
