package io.gpdedup.store.engine;

import java.time.Duration;

/**
 * Tuning of a {@link DedupStoreEngine}; every unit of the engine uses the same settings.
 *
 * @param containerSizeBytes a container is rolled over before it would exceed this (4 KiB .. 1 GiB)
 * @param capacityBytes      per-unit limit on container bytes; 0 = unlimited
 * @param verifyOnPut        which new chunks are decoded and checked against their SHA-256 before they are stored
 * @param maxChunkBytes      largest raw (and, with some slack, stored) chunk accepted
 * @param gcLiveRatio        garbage collection rewrites a container whose live bytes are below this share of it
 * @param diskReserveBytes   free space new chunk data must leave on the data directory's file system; 0 = none
 * @param reconnectGrace     after a unit opens, garbage collection keeps every chunk of the containers it opened with for this
 *                           long: backups that a restart interrupted reconnect within it and pin their chunks again; 0 = none
 */
public record EngineSettings(long containerSizeBytes, long capacityBytes, PutVerification verifyOnPut, int maxChunkBytes, double gcLiveRatio,
        long diskReserveBytes, Duration reconnectGrace) {
    static final long DEFAULT_CONTAINER_SIZE = 64L << 20;
    static final int DEFAULT_MAX_CHUNK = 16 << 20;
    static final double DEFAULT_GC_LIVE_RATIO = 0.5;
    /** Room for garbage collection to copy a full batch (one default container) and for recipes and an index snapshot. */
    public static final long DEFAULT_DISK_RESERVE = 256L << 20;

    public EngineSettings {
        java.util.Objects.requireNonNull(verifyOnPut, "verifyOnPut");
        if (containerSizeBytes < 4096 || containerSizeBytes > (1L << 30)) {
            throw new IllegalArgumentException("containerSizeBytes must be between 4 KiB and 1 GiB, not " + containerSizeBytes);
        }
        if (capacityBytes < 0) {
            throw new IllegalArgumentException("capacityBytes must be 0 (unlimited) or positive");
        }
        if (maxChunkBytes < 1 || maxChunkBytes > (256 << 20)) {
            throw new IllegalArgumentException("maxChunkBytes must be between 1 and 256 MiB, not " + maxChunkBytes);
        }
        if (!(gcLiveRatio >= 0 && gcLiveRatio <= 1)) {
            throw new IllegalArgumentException("gcLiveRatio must be between 0 and 1, not " + gcLiveRatio);
        }
        if (diskReserveBytes < 0) {
            throw new IllegalArgumentException("diskReserveBytes must be 0 (none) or positive");
        }
        java.util.Objects.requireNonNull(reconnectGrace, "reconnectGrace");
        if (reconnectGrace.isNegative()) {
            throw new IllegalArgumentException("reconnectGrace must be 0 (none) or positive");
        }
    }

    /**
     * 64 MiB containers, no capacity limit, a sample of new chunks checked, 16 MiB chunks, rewrite
     * below 50% live, 256 MiB of disk kept free, no reconnect grace (the server sets one).
     */
    public static EngineSettings defaults() {
        return new EngineSettings(DEFAULT_CONTAINER_SIZE, 0, PutVerification.SAMPLE, DEFAULT_MAX_CHUNK, DEFAULT_GC_LIVE_RATIO, DEFAULT_DISK_RESERVE,
                Duration.ZERO);
    }

    EngineSettings withContainerSizeBytes(long v) {
        return new EngineSettings(v, capacityBytes, verifyOnPut, maxChunkBytes, gcLiveRatio, diskReserveBytes, reconnectGrace);
    }

    public EngineSettings withCapacityBytes(long v) {
        return new EngineSettings(containerSizeBytes, v, verifyOnPut, maxChunkBytes, gcLiveRatio, diskReserveBytes, reconnectGrace);
    }

    public EngineSettings withVerifyOnPut(PutVerification v) {
        return new EngineSettings(containerSizeBytes, capacityBytes, v, maxChunkBytes, gcLiveRatio, diskReserveBytes, reconnectGrace);
    }

    EngineSettings withMaxChunkBytes(int v) {
        return new EngineSettings(containerSizeBytes, capacityBytes, verifyOnPut, v, gcLiveRatio, diskReserveBytes, reconnectGrace);
    }

    EngineSettings withGcLiveRatio(double v) {
        return new EngineSettings(containerSizeBytes, capacityBytes, verifyOnPut, maxChunkBytes, v, diskReserveBytes, reconnectGrace);
    }

    public EngineSettings withDiskReserveBytes(long v) {
        return new EngineSettings(containerSizeBytes, capacityBytes, verifyOnPut, maxChunkBytes, gcLiveRatio, v, reconnectGrace);
    }

    public EngineSettings withReconnectGrace(Duration v) {
        return new EngineSettings(containerSizeBytes, capacityBytes, verifyOnPut, maxChunkBytes, gcLiveRatio, diskReserveBytes, v);
    }
}
