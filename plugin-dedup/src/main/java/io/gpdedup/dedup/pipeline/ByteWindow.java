package io.gpdedup.dedup.pipeline;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.concurrent.Semaphore;

/**
 * A budget of chunk bytes in flight, shared by every stream of a process: a reader blocks when the
 * stages behind it fall back, and a host agent serving many calls at once stays within one bound.
 * Every batch releases what it took when it is done, whatever other streams hold, so streams
 * cannot deadlock on it.
 */
public final class ByteWindow {
    private static final int UNIT = 1024;
    private final Semaphore permits;
    private final int capacityUnits;

    public ByteWindow(long capacityBytes) {
        this.capacityUnits = (int) Math.max(1, capacityBytes / UNIT);
        this.permits = new Semaphore(capacityUnits);
    }

    /** Units to acquire for {@code bytes}; one batch can always pass, even larger than the window. */
    int units(long bytes) {
        return (int) Math.min(capacityUnits, Math.max(1, (bytes + UNIT - 1) / UNIT));
    }

    void acquire(int units) throws IOException {
        try {
            permits.acquire(units);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for the store");
        }
    }

    boolean tryAcquire(int units) {
        return permits.tryAcquire(units);
    }

    /** Bytes not taken by any batch now, rounded down to units. */
    long availableBytes() {
        return (long) permits.availablePermits() * UNIT;
    }

    void release(int units) {
        permits.release(units);
    }
}
