package io.gpdedup.store.config;

import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.auth.UnitPolicy;
import io.gpdedup.store.crypt.KeySource;
import io.gpdedup.store.engine.EngineSettings;
import io.gpdedup.store.engine.PutVerification;
import io.gpdedup.store.jobs.GcSchedule;
import io.gpdedup.store.replication.ReplicationSettings;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.store.tls.TlsSettings;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/**
 * Everything the server is told: where to listen, where the data lives, limits, and who may log in
 * to which storage unit. Read from YAML by {@link ConfigLoader}; see docs/store.md for the keys.
 *
 * @param metricsPort the Prometheus endpoint's port; 0 picks a free one, -1 turns it off
 * @param units unit name to user name to password hash
 * @param tls TLS certificate, key and whether plain text is refused; null: plain TCP only
 * @param unitCapacityBytes most container bytes each storage unit may hold; 0 = unlimited
 * @param verifyOnPut which uploaded chunks the store decodes and re-hashes before keeping them
 * @param replication the stores units may copy backups to, and how those background copies are retried
 * @param connectionLimits login timeout, connection caps and pending logins
 * @param diskReserveBytes free space new chunk data must leave on the data directory's file system; 0 = none
 *     (with a bucket: on the cache directory's)
 * @param reconnectGrace how long a backup lease outlives its lost connection, and how long after a start garbage
 *     collection keeps the chunks the store started with: backups cut off by a network fault or a restart reconnect
 *     within it (docs/protocol.md section 3.4); 0 = none
 * @param storage where the units are kept: {@code null} for the data directory (the default), else a bucket (docs/s3.md)
 * @param gc when the store collects garbage by itself
 * @param recompress how the store recompresses what backups wrote once they are over
 * @param log where the server logs
 * @param policies each unit's roles, retention lock and overwrite rule; a unit not named has {@link UnitPolicy#DEFAULT}
 * @param encryption where the key that encrypts the units at rest comes from; null: units are written in plaintext
 */
public record StoreConfig(
        String listenAddress,
        int port,
        Path dataDir,
        int metricsPort,
        int maxFrameBytes,
        int maxBatch,
        Duration idleTimeout,
        int engineThreads,
        Duration shutdownGrace,
        Map<String, Map<String, PasswordHash>> units,
        TlsSettings tls,
        long unitCapacityBytes,
        PutVerification verifyOnPut,
        ReplicationSettings replication,
        ConnectionLimits connectionLimits,
        long diskReserveBytes,
        Duration reconnectGrace,
        S3Settings storage,
        GcSchedule gc,
        RecompressSettings recompress,
        LogSettings log,
        Map<String, UnitPolicy> policies,
        KeySource encryption) {

    public static final String DEFAULT_LISTEN_ADDRESS = "127.0.0.1";
    public static final int DEFAULT_PORT = 7411;
    public static final int DEFAULT_METRICS_PORT = 7412;
    public static final int METRICS_OFF = -1;
    static final int DEFAULT_MAX_BATCH = 65_536;
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(600);
    public static final int DEFAULT_ENGINE_THREADS = 8;
    static final Duration DEFAULT_SHUTDOWN_GRACE = Duration.ofSeconds(60);
    /** Longer than the dedup plugin's default reconnect timeout (300 s). */
    static final Duration DEFAULT_RECONNECT_GRACE = Duration.ofSeconds(600);
    /** The smallest max frame that still carries a PUT of a 1 MiB chunk with room to spare. */
    static final int MIN_MAX_FRAME_BYTES = 64 * 1024;

    public StoreConfig {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port + " is not 0..65535");
        }
        if (metricsPort < METRICS_OFF || metricsPort > 65535) {
            throw new IllegalArgumentException("metrics-port " + metricsPort + " is not 0..65535 (or -1 for off)");
        }
        if (maxFrameBytes < MIN_MAX_FRAME_BYTES) {
            throw new IllegalArgumentException("max-frame-bytes " + maxFrameBytes + " is below " + MIN_MAX_FRAME_BYTES);
        }
        if (maxFrameBytes > FrameCodec.LARGEST_MAX_FRAME) {
            // Clients take no longer frame than this, whatever a server announces.
            throw new IllegalArgumentException("max-frame-bytes " + maxFrameBytes + " is above " + FrameCodec.LARGEST_MAX_FRAME);
        }
        if (maxBatch < 1) {
            throw new IllegalArgumentException("max-batch " + maxBatch + " is below 1");
        }
        if (idleTimeout.isNegative() || idleTimeout.isZero()) {
            throw new IllegalArgumentException("idle-timeout-seconds must be positive");
        }
        if (engineThreads < 1) {
            throw new IllegalArgumentException("engine-threads " + engineThreads + " is below 1");
        }
        if (shutdownGrace.isNegative()) {
            throw new IllegalArgumentException("shutdown-grace-seconds must not be negative");
        }
        if (unitCapacityBytes < 0) {
            throw new IllegalArgumentException("unit-capacity-bytes " + unitCapacityBytes + " is negative (0 = unlimited)");
        }
        java.util.Objects.requireNonNull(verifyOnPut, "verifyOnPut");
        java.util.Objects.requireNonNull(replication, "replication");
        java.util.Objects.requireNonNull(connectionLimits, "connectionLimits");
        if (diskReserveBytes < 0) {
            throw new IllegalArgumentException("disk-reserve-bytes " + diskReserveBytes + " is negative (0 = none)");
        }
        java.util.Objects.requireNonNull(reconnectGrace, "reconnectGrace");
        java.util.Objects.requireNonNull(gc, "gc");
        java.util.Objects.requireNonNull(recompress, "recompress");
        java.util.Objects.requireNonNull(log, "log");
        if (reconnectGrace.isNegative()) {
            throw new IllegalArgumentException("reconnect-grace-seconds must not be negative");
        }
        if (units.isEmpty()) {
            throw new IllegalArgumentException("no storage unit configured: nobody could log in");
        }
        units = Map.copyOf(units);
        policies = Map.copyOf(policies);
        for (String unit : policies.keySet()) {
            if (!units.containsKey(unit)) {
                throw new IllegalArgumentException("unit " + unit + " has a policy but no users");
            }
        }
    }

    /** Without TLS and without a capacity limit. */
    StoreConfig(String listenAddress, int port, Path dataDir, int metricsPort, int maxFrameBytes, int maxBatch,
            Duration idleTimeout, int engineThreads, Duration shutdownGrace, Map<String, Map<String, PasswordHash>> units) {
        this(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units,
                null, 0, PutVerification.SAMPLE, ReplicationSettings.DEFAULT, ConnectionLimits.defaults(),
                EngineSettings.DEFAULT_DISK_RESERVE, DEFAULT_RECONNECT_GRACE, null, GcSchedule.DEFAULT, RecompressSettings.DEFAULT, LogSettings.STDERR,
                Map.of(), null);
    }

    /** Defaults for everything but the data directory and the users. */
    public static StoreConfig defaults(Path dataDir, Map<String, Map<String, PasswordHash>> units) {
        return new StoreConfig(DEFAULT_LISTEN_ADDRESS, DEFAULT_PORT, dataDir, METRICS_OFF, FrameCodec.DEFAULT_MAX_FRAME,
                DEFAULT_MAX_BATCH, DEFAULT_IDLE_TIMEOUT, DEFAULT_ENGINE_THREADS, DEFAULT_SHUTDOWN_GRACE, units);
    }

    public StoreConfig withPort(int newPort) {
        return new StoreConfig(listenAddress, newPort, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, storage, gc, recompress, log, policies, encryption);
    }

    public StoreConfig withDataDir(Path newDataDir) {
        return new StoreConfig(listenAddress, port, newDataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, storage, gc, recompress, log, policies, encryption);
    }

    public StoreConfig withMetricsPort(int newMetricsPort) {
        return new StoreConfig(listenAddress, port, dataDir, newMetricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, storage, gc, recompress, log, policies, encryption);
    }

    public StoreConfig withIdleTimeout(Duration newIdleTimeout) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, newIdleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, storage, gc, recompress, log, policies, encryption);
    }

    public StoreConfig withLimits(int newMaxFrameBytes, int newMaxBatch) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, newMaxFrameBytes, newMaxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, storage, gc, recompress, log, policies, encryption);
    }

    public StoreConfig withTls(TlsSettings newTls) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, newTls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, storage, gc, recompress, log, policies, encryption);
    }

    StoreConfig withUnitCapacity(long bytes) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, bytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, storage, gc, recompress, log, policies, encryption);
    }

    StoreConfig withConnectionLimits(ConnectionLimits limits) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, limits, diskReserveBytes, reconnectGrace, storage, gc, recompress, log, policies, encryption);
    }

    StoreConfig withDiskReserve(long bytes) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, bytes, reconnectGrace, storage, gc, recompress, log, policies, encryption);
    }

    public StoreConfig withReconnectGrace(Duration grace) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, grace, storage, gc, recompress, log, policies, encryption);
    }

    public StoreConfig withReplication(ReplicationSettings newReplication) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, newReplication, connectionLimits, diskReserveBytes, reconnectGrace, storage, gc, recompress, log, policies, encryption);
    }

    public StoreConfig withGc(GcSchedule newGc) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, storage, newGc, recompress, log, policies, encryption);
    }

    StoreConfig withRecompress(RecompressSettings newRecompress) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, storage, gc, newRecompress, log, policies, encryption);
    }

    public StoreConfig withLog(LogSettings newLog) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, storage, gc, recompress, newLog, policies, encryption);
    }

    @Override
    public String toString() {
        // Hashes are secrets too (offline guessing): show only who may log in.
        StringBuilder who = new StringBuilder();
        units.forEach((unit, users) -> who.append(unit).append(users.keySet()).append(' '));
        return "StoreConfig[listen=" + listenAddress + ":" + port + ", data-dir=" + dataDir + ", metrics-port=" + metricsPort
                + ", max-frame-bytes=" + maxFrameBytes + ", max-batch=" + maxBatch + ", idle-timeout=" + idleTimeout
                + ", engine-threads=" + engineThreads + ", units=" + who.toString().trim()
                + (tls == null ? "" : ", tls-cert=" + tls.certFile() + ", tls-required=" + tls.required())
                + (unitCapacityBytes == 0 ? "" : ", unit-capacity-bytes=" + unitCapacityBytes)
                + ", verify-on-put=" + verifyOnPut + ", replication-retry=" + replication.retryDelay() + ".." + replication.maxRetryDelay()
                + " x" + replication.maxAttempts() + ", replication-targets=" + replication.targets() + ", " + connectionLimits + ", disk-reserve-bytes=" + diskReserveBytes
                + ", reconnect-grace=" + reconnectGrace + ", gc-after-delete=" + gc.afterDelete() + " (max " + gc.maxDelay() + ")"
                + ", gc-interval=" + gc.interval() + ", recompress-level=" + recompress.level() + " (after " + recompress.afterIdle()
                + " idle), log=" + log + "]";
    }

    public StoreConfig withPolicies(Map<String, UnitPolicy> newPolicies) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, storage, gc, recompress, log, newPolicies, encryption);
    }

    /** The unit's roles, retention lock and overwrite rule. */
    public UnitPolicy policy(String unit) {
        return policies.getOrDefault(unit, UnitPolicy.DEFAULT);
    }

    public StoreConfig withStorage(S3Settings s) {
        return new StoreConfig(listenAddress, port, dataDir, metricsPort, maxFrameBytes, maxBatch, idleTimeout, engineThreads, shutdownGrace, units, tls, unitCapacityBytes, verifyOnPut, replication, connectionLimits, diskReserveBytes, reconnectGrace, s, gc, recompress, log, policies, encryption);
    }
}
