package io.gpdedup.store.config;

import io.gpdedup.store.net.StoreHandler;

/**
 * What clients may make the server hold (docs/store.md): open backup leases per connection, per
 * unit and in total (a lease counts until it is closed, through a lost connection's reconnect
 * grace too); upload frame memory (frames being read or waiting to be served) in total, of which
 * one unit's connections may take half where there are several units; and requests read but not yet
 * answered per connection. Each default is far above what the backups of a cluster with hundreds of
 * segments per host use.
 *
 * @param maxFrameMemoryBytes 0: half of the JVM's direct memory limit
 */
public record HoldLimits(int maxLeasesPerConnection, int maxLeasesPerUnit, int maxLeases, long maxFrameMemoryBytes, int maxQueuedRequests) {
    static final int DEFAULT_MAX_LEASES_PER_CONNECTION = 1_024;
    static final int DEFAULT_MAX_LEASES_PER_UNIT = 16_384;
    static final int DEFAULT_MAX_LEASES = 65_536;
    static final long AUTO_FRAME_MEMORY = 0;
    static final int DEFAULT_MAX_QUEUED_REQUESTS = 1_024;
    static final HoldLimits DEFAULT = new HoldLimits(DEFAULT_MAX_LEASES_PER_CONNECTION, DEFAULT_MAX_LEASES_PER_UNIT, DEFAULT_MAX_LEASES,
            AUTO_FRAME_MEMORY, DEFAULT_MAX_QUEUED_REQUESTS);

    public HoldLimits {
        if (maxLeasesPerConnection < 1) {
            throw new IllegalArgumentException("max-leases-per-connection " + maxLeasesPerConnection + " is below 1");
        }
        if (maxLeasesPerUnit < 1) {
            throw new IllegalArgumentException("max-leases-per-unit " + maxLeasesPerUnit + " is below 1");
        }
        if (maxLeases < 1) {
            throw new IllegalArgumentException("max-leases " + maxLeases + " is below 1");
        }
        if (maxFrameMemoryBytes < 0) {
            throw new IllegalArgumentException("max-frame-memory-bytes " + maxFrameMemoryBytes + " is negative (0 = half of the direct memory limit)");
        }
        if (maxQueuedRequests < StoreHandler.MAX_IN_FLIGHT_REQUESTS) {
            throw new IllegalArgumentException("max-queued-requests " + maxQueuedRequests + " is below " + StoreHandler.MAX_IN_FLIGHT_REQUESTS);
        }
    }

    /** The frame memory cap in bytes: the configured one, or half of {@code directMemoryLimit}. */
    public long frameMemoryBytes(long directMemoryLimit) {
        return maxFrameMemoryBytes == AUTO_FRAME_MEMORY ? directMemoryLimit / 2 : maxFrameMemoryBytes;
    }

    @Override
    public String toString() {
        return "max-leases-per-connection=" + maxLeasesPerConnection + ", max-leases-per-unit=" + maxLeasesPerUnit + ", max-leases=" + maxLeases
                + ", max-frame-memory-bytes=" + (maxFrameMemoryBytes == AUTO_FRAME_MEMORY ? "auto" : maxFrameMemoryBytes)
                + ", max-queued-requests=" + maxQueuedRequests;
    }
}
