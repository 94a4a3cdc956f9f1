package io.gpdedup.store.jobs;

import java.time.Duration;
import java.util.Objects;

/**
 * When the store collects garbage by itself (docs/store.md, Retention).
 *
 * @param afterDelete quiet time after the last delete of a unit before its collection; zero: no collection after deletes
 * @param maxDelay longest a delete waits for its collection while deletes keep coming
 * @param interval every unit is also collected this often; zero: not on a schedule
 */
public record GcSchedule(Duration afterDelete, Duration maxDelay, Duration interval) {
    public static final GcSchedule DEFAULT = new GcSchedule(Duration.ofSeconds(60), Duration.ofSeconds(900), Duration.ZERO);

    public GcSchedule {
        Objects.requireNonNull(afterDelete, "afterDelete");
        Objects.requireNonNull(maxDelay, "maxDelay");
        Objects.requireNonNull(interval, "interval");
        if (afterDelete.isNegative()) {
            throw new IllegalArgumentException("gc-after-delete-seconds must not be negative (0 = off)");
        }
        if (interval.isNegative()) {
            throw new IllegalArgumentException("gc-interval-seconds must not be negative (0 = off)");
        }
        if (!afterDelete.isZero() && maxDelay.compareTo(afterDelete) < 0) {
            throw new IllegalArgumentException("gc-max-delay-seconds (" + maxDelay.toSeconds() + ") is below gc-after-delete-seconds ("
                    + afterDelete.toSeconds() + ")");
        }
    }

    boolean afterDeletes() {
        return !afterDelete.isZero();
    }
}
