package io.gpdedup.store.replication;

import java.time.Duration;

/**
 * How the store retries its background copies: the first retry waits {@code retryDelay}, each
 * further one twice as long up to {@code maxRetryDelay}; after {@code maxAttempts} failed attempts
 * a job is given up (state failed).
 */
public record ReplicationSettings(Duration retryDelay, Duration maxRetryDelay, int maxAttempts) {
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
