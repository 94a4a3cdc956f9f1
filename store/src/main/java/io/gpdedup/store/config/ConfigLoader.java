package io.gpdedup.store.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.store.StrictYaml;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.auth.Role;
import io.gpdedup.store.auth.UnitPolicy;
import io.gpdedup.store.engine.CommitPolicy;
import io.gpdedup.store.engine.EngineSettings;
import io.gpdedup.store.engine.PutVerification;
import io.gpdedup.store.jobs.GcSchedule;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads the server's YAML config strictly: an unknown or repeated key, a wrong type or a bad
 * value is an error that names the file, the key and, where the parser knows it, the line, and never
 * quotes the file's text (it holds password hashes).
 */
public final class ConfigLoader {
    private ConfigLoader() {
    }

    /**
     * The file's form: every key optional except units. A class with fields rather than a record:
     * Jackson then meets the keys one by one and reports an unknown one at its own line.
     */
    static final class ConfigFile {
        @JsonProperty("listen-address") String listenAddress;
        @JsonProperty("port") Integer port;
        @JsonProperty("data-dir") String dataDir;
        @JsonProperty("metrics-port") Integer metricsPort;
        @JsonProperty("idle-timeout-seconds") Integer idleTimeoutSeconds;
        @JsonProperty("max-frame-bytes") Integer maxFrameBytes;
        @JsonProperty("max-batch") Integer maxBatch;
        @JsonProperty("engine-threads") Integer engineThreads;
        @JsonProperty("shutdown-grace-seconds") Integer shutdownGraceSeconds;
        @JsonProperty("units") Map<String, UnitFile> units;
        @JsonProperty("tls-cert") String tlsCert;
        @JsonProperty("tls-key") String tlsKey;
        @JsonProperty("tls-required") Boolean tlsRequired;
        @JsonProperty("unit-capacity-bytes") Long unitCapacityBytes;
        @JsonProperty("verify-on-put") String verifyOnPut;
        @JsonProperty("replication-retry-seconds") Integer replicationRetrySeconds;
        @JsonProperty("replication-retry-max-seconds") Integer replicationRetryMaxSeconds;
        @JsonProperty("replication-max-attempts") Integer replicationMaxAttempts;
        @JsonProperty("replication-max-jobs-per-unit") Integer replicationMaxJobsPerUnit;
        @JsonProperty("replication-targets") Map<String, ReplicationSection.TargetFile> replicationTargets;
        @JsonProperty("login-timeout-seconds") Integer loginTimeoutSeconds;
        @JsonProperty("max-connections") Integer maxConnections;
        @JsonProperty("max-connections-per-address") Integer maxConnectionsPerAddress;
        @JsonProperty("max-pending-logins") Integer maxPendingLogins;
        @JsonProperty("max-leases-per-connection") Integer maxLeasesPerConnection;
        @JsonProperty("max-leases-per-unit") Integer maxLeasesPerUnit;
        @JsonProperty("max-leases") Integer maxLeases;
        @JsonProperty("max-frame-memory-bytes") Long maxFrameMemoryBytes;
        @JsonProperty("max-queued-requests") Integer maxQueuedRequests;
        @JsonProperty("disk-reserve-bytes") Long diskReserveBytes;
        @JsonProperty("reconnect-grace-seconds") Integer reconnectGraceSeconds;
        @JsonProperty("storage") StorageSection.StorageFile storage;
        @JsonProperty("gc-after-delete-seconds") Integer gcAfterDeleteSeconds;
        @JsonProperty("gc-max-delay-seconds") Integer gcMaxDelaySeconds;
        @JsonProperty("gc-interval-seconds") Integer gcIntervalSeconds;
        @JsonProperty("recompress-level") Integer recompressLevel;
        @JsonProperty("recompress-after-idle-seconds") Integer recompressAfterIdleSeconds;
        @JsonProperty("recompress-threads") Integer recompressThreads;
        @JsonProperty("log-file") String logFile;
        @JsonProperty("log-file-max-bytes") Long logFileMaxBytes;
        @JsonProperty("log-file-count") Integer logFileCount;
        @JsonProperty("encryption") EncryptionSection.EncryptionFile encryption;
    }

    static final class UnitFile {
        @JsonProperty("users") Map<String, String> users;
        @JsonProperty("roles") Map<String, String> roles;
        @JsonProperty("retention-lock") RetentionLockFile retentionLock;
        @JsonProperty("overwrite") String overwrite;
    }

    static final class RetentionLockFile {
        @JsonProperty("mode") String mode;
        @JsonProperty("days") Integer days;
    }

    /** Thrown for a config that cannot be used; the message is meant for the operator. */
    public static final class ConfigException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ConfigException(String message) {
            super(message);
        }
    }

    public static StoreConfig load(Path file) {
        String text = StrictYaml.readFile(file, "config", ConfigException::new);
        Path base = file.toAbsolutePath().getParent();
        return parse(text, file.toString(), base);
    }

    /** Parses config text; relative paths in it are taken against {@code base}. */
    static StoreConfig parse(String text, String source, Path base) {
        ConfigFile f = StrictYaml.read(StrictYaml.mapper(), text, ConfigFile.class, "config " + source, ConfigLoader::expected,
                ConfigException::new);
        if (f.units == null || f.units.isEmpty()) {
            throw new ConfigException("config " + source + ": 'units' is missing: nobody could log in");
        }
        Map<String, Map<String, PasswordHash>> units = new LinkedHashMap<>();
        Map<String, UnitPolicy> policies = new LinkedHashMap<>();
        for (var unit : f.units.entrySet()) {
            UnitFile u = unit.getValue();
            if (u == null || u.users == null || u.users.isEmpty()) {
                throw new ConfigException("config " + source + ": units." + unit.getKey() + ".users is missing or empty");
            }
            Map<String, PasswordHash> users = new LinkedHashMap<>();
            for (var user : u.users.entrySet()) {
                String key = "units." + unit.getKey() + ".users." + user.getKey();
                if (user.getValue() == null) {
                    throw new ConfigException("config " + source + ": " + key + " has no password hash");
                }
                try {
                    users.put(user.getKey(), PasswordHash.parse(user.getValue()));
                } catch (IllegalArgumentException e) {
                    throw new ConfigException("config " + source + ": " + key + ": " + e.getMessage());
                }
            }
            units.put(unit.getKey(), users);
            policies.put(unit.getKey(), policy(u, "config " + source + ": units." + unit.getKey(), users.keySet()));
        }
        Path dataDir = f.dataDir == null ? StorePaths.defaultDataDir() : StorePaths.resolve(f.dataDir, base);
        try {
            return new StoreConfig(
                    or(f.listenAddress, StoreConfig.DEFAULT_LISTEN_ADDRESS),
                    or(f.port, StoreConfig.DEFAULT_PORT),
                    dataDir,
                    or(f.metricsPort, StoreConfig.METRICS_OFF),
                    or(f.maxFrameBytes, FrameCodec.DEFAULT_MAX_FRAME),
                    or(f.maxBatch, StoreConfig.DEFAULT_MAX_BATCH),
                    f.idleTimeoutSeconds == null ? StoreConfig.DEFAULT_IDLE_TIMEOUT : Duration.ofSeconds(f.idleTimeoutSeconds),
                    or(f.engineThreads, StoreConfig.DEFAULT_ENGINE_THREADS),
                    f.shutdownGraceSeconds == null ? StoreConfig.DEFAULT_SHUTDOWN_GRACE : Duration.ofSeconds(f.shutdownGraceSeconds),
                    units,
                    tls(f, source, base),
                    or(f.unitCapacityBytes, 0L),
                    f.verifyOnPut == null ? PutVerification.SAMPLE : PutVerification.parse(f.verifyOnPut),
                    ReplicationSection.parse(f, source, base),
                    new ConnectionLimits(
                            f.loginTimeoutSeconds == null ? ConnectionLimits.DEFAULT_LOGIN_TIMEOUT : Duration.ofSeconds(f.loginTimeoutSeconds),
                            or(f.maxConnections, ConnectionLimits.AUTO),
                            or(f.maxConnectionsPerAddress, ConnectionLimits.AUTO),
                            or(f.maxPendingLogins, ConnectionLimits.DEFAULT_MAX_PENDING_LOGINS),
                            new HoldLimits(or(f.maxLeasesPerConnection, HoldLimits.DEFAULT_MAX_LEASES_PER_CONNECTION),
                                    or(f.maxLeasesPerUnit, HoldLimits.DEFAULT_MAX_LEASES_PER_UNIT), or(f.maxLeases, HoldLimits.DEFAULT_MAX_LEASES),
                                    or(f.maxFrameMemoryBytes, HoldLimits.AUTO_FRAME_MEMORY),
                                    or(f.maxQueuedRequests, HoldLimits.DEFAULT_MAX_QUEUED_REQUESTS))),
                    or(f.diskReserveBytes, EngineSettings.DEFAULT_DISK_RESERVE),
                    f.reconnectGraceSeconds == null ? StoreConfig.DEFAULT_RECONNECT_GRACE : Duration.ofSeconds(f.reconnectGraceSeconds),
                    StorageSection.parse(f.storage, source, base, dataDir),
                    gc(f),
                    new RecompressSettings(or(f.recompressLevel, RecompressSettings.DEFAULT.level()),
                            f.recompressAfterIdleSeconds == null ? RecompressSettings.DEFAULT.afterIdle()
                                    : Duration.ofSeconds(f.recompressAfterIdleSeconds),
                            or(f.recompressThreads, RecompressSettings.DEFAULT_THREADS)),
                    new LogSettings(f.logFile == null ? null : StorePaths.resolve(f.logFile, base),
                            or(f.logFileMaxBytes, LogSettings.DEFAULT_MAX_BYTES), or(f.logFileCount, LogSettings.DEFAULT_FILES)),
                    policies,
                    EncryptionSection.parse(f.encryption, source, base));
        } catch (IllegalArgumentException e) {
            throw new ConfigException("config " + source + ": " + e.getMessage());
        }
    }

    /** A unit's roles, retention lock and overwrite rule; {@code where} names the unit's key for messages. */
    private static UnitPolicy policy(UnitFile u, String where, java.util.Set<String> users) {
        Map<String, Role> roles = new LinkedHashMap<>();
        if (u.roles != null) {
            for (var r : u.roles.entrySet()) {
                if (!users.contains(r.getKey())) {
                    throw new ConfigException(where + ".roles." + r.getKey() + ": no such user in users");
                }
                try {
                    roles.put(r.getKey(), Role.parse(r.getValue()));
                } catch (IllegalArgumentException e) {
                    throw new ConfigException(where + ".roles." + r.getKey() + ": not a role (admin, backup or restore)");
                }
            }
        }
        RetentionLock.Mode mode = RetentionLock.Mode.NONE;
        int days = 0;
        if (u.retentionLock != null) {
            try {
                mode = RetentionLock.Mode.parse(u.retentionLock.mode);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(where + ".retention-lock.mode: not a retention lock mode (governance or compliance)");
            }
            if (u.retentionLock.days == null) {
                throw new ConfigException(where + ".retention-lock.days is missing: give a positive number of days");
            }
            if (u.retentionLock.days <= 0) {
                throw new ConfigException(where + ".retention-lock.days: " + u.retentionLock.days + " is not a positive number of days");
            }
            days = u.retentionLock.days;
        }
        boolean replaceable;
        if (u.overwrite == null || u.overwrite.equals("refuse")) {
            replaceable = false;
        } else if (u.overwrite.equals("allow")) {
            replaceable = true;
        } else {
            throw new ConfigException(where + ".overwrite: not allow or refuse");
        }
        return new UnitPolicy(roles, new CommitPolicy(mode, days, replaceable));
    }

    private static GcSchedule gc(ConfigFile f) {
        GcSchedule d = GcSchedule.DEFAULT;
        return new GcSchedule(
                f.gcAfterDeleteSeconds == null ? d.afterDelete() : Duration.ofSeconds(f.gcAfterDeleteSeconds),
                f.gcMaxDelaySeconds == null ? d.maxDelay() : Duration.ofSeconds(f.gcMaxDelaySeconds),
                f.gcIntervalSeconds == null ? d.interval() : Duration.ofSeconds(f.gcIntervalSeconds));
    }

    private static io.gpdedup.store.tls.TlsSettings tls(ConfigFile f, String source, Path base) {
        if (f.tlsCert == null && f.tlsKey == null) {
            if (Boolean.TRUE.equals(f.tlsRequired)) {
                throw new ConfigException("config " + source + ": tls-required is true but tls-cert and tls-key are not set");
            }
            PlainTextListen.check(or(f.listenAddress, StoreConfig.DEFAULT_LISTEN_ADDRESS), f.tlsRequired, source);
            return null;
        }
        if (f.tlsCert == null || f.tlsKey == null) {
            throw new ConfigException("config " + source + ": tls-cert and tls-key go together (only "
                    + (f.tlsCert == null ? "tls-key" : "tls-cert") + " is set)");
        }
        // TLS configured means TLS required unless the operator explicitly allows plain text too.
        return new io.gpdedup.store.tls.TlsSettings(StorePaths.resolve(f.tlsCert, base), StorePaths.resolve(f.tlsKey, base),
                f.tlsRequired == null || f.tlsRequired);
    }

    /** What a value of one of this file's own classes should be, for the message of a wrong one; null for other types. */
    private static String expected(Class<?> type) {
        if (type == UnitFile.class) {
            return "a mapping with 'users'";
        }
        if (type == RetentionLockFile.class) {
            return "a mapping with 'mode' and 'days'";
        }
        if (type == ReplicationSection.TargetFile.class) {
            return "a mapping with 'host' and optionally 'port', 'tls', 'tls-ca-file' and 'units'";
        }
        if (type == StorageSection.StorageFile.class) {
            return "a mapping with 'type' and, for s3, 'bucket'";
        }
        if (type == ConfigFile.class) {
            return "a mapping of keys to values";
        }
        return null;
    }

    private static <T> T or(T value, T fallback) {
        return value == null ? fallback : value;
    }
}
