package io.gpdedup.store.replication;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Where the store may copy backups to and how it retries: the operator's {@code targets} (none:
 * REPLICATE is refused), at most {@code maxJobsPerUnit} jobs waiting or running per unit; the first
 * retry waits {@code retryDelay}, each further one twice as long up to {@code maxRetryDelay}; after
 * {@code maxAttempts} failed attempts a job is given up (state failed).
 */
public record ReplicationSettings(Duration retryDelay, Duration maxRetryDelay, int maxAttempts, List<ReplicationTarget> targets,
        int maxJobsPerUnit) {
    public static final int DEFAULT_MAX_JOBS_PER_UNIT = 1000;
    public static final ReplicationSettings DEFAULT = new ReplicationSettings(Duration.ofSeconds(10), Duration.ofMinutes(10), 150);

    public ReplicationSettings {
        if (retryDelay.isNegative() || retryDelay.isZero()) {
            throw new IllegalArgumentException("replication-retry-seconds must be positive");
        }
        if (maxRetryDelay.compareTo(retryDelay) < 0) {
            throw new IllegalArgumentException("replication-retry-max-seconds must be at least replication-retry-seconds");
        }
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("replication-max-attempts " + maxAttempts + " is below 1");
        }
        if (maxJobsPerUnit < 1) {
            throw new IllegalArgumentException("replication-max-jobs-per-unit " + maxJobsPerUnit + " is below 1");
        }
        targets = List.copyOf(targets);
    }

    /** No targets: replication refused until the operator names some. */
    public ReplicationSettings(Duration retryDelay, Duration maxRetryDelay, int maxAttempts) {
        this(retryDelay, maxRetryDelay, maxAttempts, List.of(), DEFAULT_MAX_JOBS_PER_UNIT);
    }

    public ReplicationSettings withTargets(List<ReplicationTarget> newTargets) {
        return new ReplicationSettings(retryDelay, maxRetryDelay, maxAttempts, newTargets, maxJobsPerUnit);
    }

    public ReplicationSettings withMaxJobsPerUnit(int max) {
        return new ReplicationSettings(retryDelay, maxRetryDelay, maxAttempts, targets, max);
    }

    /** The target a copy of {@code unit} to {@code host}:{@code port} goes to, if the operator allows it. */
    Optional<ReplicationTarget> target(String unit, String host, int port) {
        return targets.stream().filter(t -> t.serves(unit, host, port)).findFirst();
    }

    /** How the refusal of a copy of {@code unit} to {@code host}:{@code port} reads: what is allowed and where to change it. */
    String refusal(String unit, String host, int port) {
        String where = (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
        if (targets.isEmpty()) {
            return "replication to " + where + " refused: this store's config lists no replication-targets (the stores its units may"
                    + " copy to); an operator adds the remote store there";
        }
        List<String> allowed = targets.stream().filter(t -> t.allows(unit)).map(ReplicationTarget::toString).toList();
        return "replication to " + where + " refused: not among the replication-targets unit '" + unit + "' may copy to ("
                + (allowed.isEmpty() ? "none" : String.join(", ", allowed)) + "); set remote_hostname and remote_port to one of them,"
                + " or have an operator add it";
    }

    /** How long to wait after the {@code failures}-th failed attempt (1 = the first). */
    Duration delayAfter(int failures) {
        Duration d = retryDelay;
        for (int i = 1; i < failures && d.compareTo(maxRetryDelay) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(maxRetryDelay) > 0 ? maxRetryDelay : d;
    }
}
