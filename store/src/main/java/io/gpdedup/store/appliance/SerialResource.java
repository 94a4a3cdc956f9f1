package io.gpdedup.store.appliance;

import java.util.function.LongSupplier;

/**
 * A resource that serves one request at a time, first come first served: the appliance's
 * namespace (file create and close) and its fingerprint index. A request waits for the ones
 * before it, then holds the resource for its own service time.
 */
final class SerialResource {
    private final LongSupplier clock;
    private long freeAtNanos;

    SerialResource(LongSupplier nanoClock) {
        this.clock = nanoClock;
        this.freeAtNanos = nanoClock.getAsLong();
    }

    /** Reserves {@code serviceNanos} behind what is queued; returns the nanosecond time it is done. */
    synchronized long reserve(long serviceNanos) {
        long start = Math.max(clock.getAsLong(), freeAtNanos);
        freeAtNanos = start + Math.max(0, serviceNanos);
        return freeAtNanos;
    }

    /** Waits in line, then for the service itself. */
    void hold(long serviceNanos) throws InterruptedException {
        if (serviceNanos <= 0) {
            return;
        }
        Appliance.sleepUntil(clock, reserve(serviceNanos));
    }
}
