package io.gpdedup.appliance;

/**
 * A resource that serves one request at a time, first come first served: the appliance's
 * namespace (file create and close) and its fingerprint index. A request waits for the ones
 * before it, then holds the resource for its own service time.
 */
final class SerialResource {
    private final ApplianceClock clock;
    private long freeAtNanos;

    SerialResource(ApplianceClock clock) {
        this.clock = clock;
        this.freeAtNanos = clock.nanos();
    }

    /** Reserves {@code serviceNanos} behind what is queued; returns the nanosecond time it is done. */
    synchronized long reserve(long serviceNanos) {
        long start = Math.max(clock.nanos(), freeAtNanos);
        freeAtNanos = start + Math.max(0, serviceNanos);
        return freeAtNanos;
    }

    /** Waits in line, then for the service itself. */
    void hold(long serviceNanos) throws InterruptedException {
        if (serviceNanos <= 0) {
            return;
        }
        clock.sleepUntil(reserve(serviceNanos));
    }
}
