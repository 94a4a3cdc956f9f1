package io.gpdedup.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpdedup.protocol.model.RetentionLock;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The dates containers are held to: a UTC midnight at or after the lock, extended in the mode they have. */
class ContainerLocksTest {
    private static RetentionLock lock(RetentionLock.Mode mode, String instant) {
        return new RetentionLock(mode, Instant.parse(instant).toEpochMilli());
    }

    @Test
    void containersAreHeldToTheFirstMidnightAtOrAfterTheLock() {
        assertEquals(lock(RetentionLock.Mode.GOVERNANCE, "2026-12-29T00:00:00Z"),
                ContainerLocks.throughDay(lock(RetentionLock.Mode.GOVERNANCE, "2026-12-28T13:45:43.486Z")));
        assertEquals(lock(RetentionLock.Mode.COMPLIANCE, "2026-12-28T00:00:00Z"),
                ContainerLocks.throughDay(lock(RetentionLock.Mode.COMPLIANCE, "2026-12-28T00:00:00Z")), "a midnight stays");
        assertEquals(lock(RetentionLock.Mode.GOVERNANCE, "2026-12-29T00:00:00Z"),
                ContainerLocks.throughDay(lock(RetentionLock.Mode.GOVERNANCE, "2026-12-28T00:00:00.001Z")));
        assertEquals(RetentionLock.NONE, ContainerLocks.throughDay(RetentionLock.NONE));
    }

    @Test
    void anExtensionMovesTheDateOnlyAndNeverBack() {
        RetentionLock governance = lock(RetentionLock.Mode.GOVERNANCE, "2026-12-29T00:00:00Z");
        RetentionLock laterCompliance = lock(RetentionLock.Mode.COMPLIANCE, "2027-01-05T00:00:00Z");
        assertEquals(lock(RetentionLock.Mode.GOVERNANCE, "2027-01-05T00:00:00Z"), ContainerLocks.extended(governance, laterCompliance));
        assertEquals(governance, ContainerLocks.extended(governance, lock(RetentionLock.Mode.GOVERNANCE, "2026-12-20T00:00:00Z")));
        assertEquals(laterCompliance, ContainerLocks.extended(RetentionLock.NONE, laterCompliance), "an unheld container takes the lock");
    }
}
