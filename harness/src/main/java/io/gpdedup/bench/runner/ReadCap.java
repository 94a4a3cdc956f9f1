package io.gpdedup.bench.runner;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A host's disk read limit, shared by all the files it feeds: each read reserves the next free
 * slot of the host's bandwidth (first come, first served), so N readers get 1/N each and one
 * reader alone gets it all. Unlimited when the rate is 0.
 */
final class ReadCap {
    private final double bytesPerSecond;
    private long nextFreeNanos;

    ReadCap(double bytesPerSecond) {
        if (bytesPerSecond < 0) {
            throw new IllegalArgumentException("read cap must not be negative");
        }
        this.bytesPerSecond = bytesPerSecond;
        this.nextFreeNanos = System.nanoTime();
    }

    double bytesPerSecond() {
        return bytesPerSecond;
    }

    /** Blocks until {@code bytes} more may be read. */
    public void acquire(int bytes) throws InterruptedException {
        if (bytesPerSecond == 0) {
            return;
        }
        long until;
        synchronized (this) {
            long now = System.nanoTime();
            // No banking: a host that was idle does not get a burst afterwards.
            long start = Math.max(now, nextFreeNanos);
            nextFreeNanos = start + (long) (bytes / bytesPerSecond * 1e9);
            until = nextFreeNanos;
        }
        long wait;
        while ((wait = until - System.nanoTime()) > 0) {
            LockSupport.parkNanos(Math.min(wait, TimeUnit.MILLISECONDS.toNanos(100)));
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
        }
    }
}
