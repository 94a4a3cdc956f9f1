package io.gpdedup.store.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.ClientTls;
import io.gpdedup.store.replication.ReplicationSettings;
import io.gpdedup.store.replication.ReplicationTarget;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The config's replication keys (docs/store.md): the retry schedule, the per-unit job limit, and
 * {@code replication-targets}, the only stores the units may copy backups to, each with its TLS.
 */
final class ReplicationSection {

    /** One entry of {@code replication-targets}; every key optional but {@code host}. */
    static final class TargetFile {
        @JsonProperty("host") String host;
        @JsonProperty("port") Integer port;
        @JsonProperty("tls") Boolean tls;
        @JsonProperty("tls-ca-file") String tlsCaFile;
        @JsonProperty("units") List<String> units;
    }

    private ReplicationSection() {
    }

    static ReplicationSettings parse(ConfigLoader.ConfigFile f, String source, Path base) {
        ReplicationSettings d = ReplicationSettings.DEFAULT;
        List<ReplicationTarget> targets = new ArrayList<>();
        if (f.replicationTargets != null) {
            for (Map.Entry<String, TargetFile> e : f.replicationTargets.entrySet()) {
                targets.add(target(e.getKey(), e.getValue(), source, base, f.units.keySet()));
            }
        }
        return new ReplicationSettings(
                f.replicationRetrySeconds == null ? d.retryDelay() : Duration.ofSeconds(f.replicationRetrySeconds),
                f.replicationRetryMaxSeconds == null ? d.maxRetryDelay() : Duration.ofSeconds(f.replicationRetryMaxSeconds),
                f.replicationMaxAttempts == null ? d.maxAttempts() : f.replicationMaxAttempts,
                targets,
                f.replicationMaxJobsPerUnit == null ? ReplicationSettings.DEFAULT_MAX_JOBS_PER_UNIT : f.replicationMaxJobsPerUnit);
    }

    private static ReplicationTarget target(String name, TargetFile t, String source, Path base, Set<String> units) {
        String key = "config " + source + ": replication-targets." + name;
        if (t == null || t.host == null || t.host.isBlank()) {
            throw new ConfigLoader.ConfigException(key + ".host is missing");
        }
        // TLS unless the operator turns it off: the remote password and the backups travel on this connection.
        boolean tls = t.tls == null || t.tls;
        if (!tls && t.tlsCaFile != null) {
            throw new ConfigLoader.ConfigException(key + ": tls-ca-file is set but tls is false");
        }
        ClientTls clientTls = null;
        if (tls) {
            Path ca = t.tlsCaFile == null ? null : StorePaths.resolve(t.tlsCaFile, base);
            if (ca != null && !Files.isReadable(ca)) {
                throw new ConfigLoader.ConfigException(key + ".tls-ca-file " + ca + " does not exist or cannot be read");
            }
            clientTls = ca == null ? ClientTls.systemTrust() : ClientTls.trusting(ca);
        }
        List<String> allowed = t.units == null ? List.of() : t.units;
        for (String u : allowed) {
            if (!units.contains(u)) {
                throw new ConfigLoader.ConfigException(key + ".units: no unit '" + u + "' in units");
            }
        }
        try {
            return new ReplicationTarget(name, t.host.strip(), t.port == null ? ClientSettings.DEFAULT_PORT : t.port, clientTls,
                    Set.copyOf(allowed));
        } catch (IllegalArgumentException e) {
            throw new ConfigLoader.ConfigException("config " + source + ": " + e.getMessage());
        }
    }
}
