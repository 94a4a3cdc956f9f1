package io.gpdedup.store.engine;

/**
 * What one step of recompression did with a container.
 *
 * @param container the container looked at; 0 when there was none
 * @param bytesBefore its indexed record bytes before
 * @param bytesAfter the same records after; equal to {@code bytesBefore} unless it was rewritten
 */
public record Recompression(Outcome outcome, int container, long bytesBefore, long bytesAfter) {
    /** Why a step ended as it did. */
    public enum Outcome {
        /** No container written since the unit opened is waiting (or each one waiting has another caller on it). */
        NOTHING_PENDING,
        /** The container was replaced by a smaller one holding the same chunks. */
        REWRITTEN,
        /** Re-encoding would save too little to be worth a rewrite; the container stays as it is. */
        ALREADY_SMALL,
        /** A backup began: the step stopped and the container waits for the next quiet time. */
        PAUSED,
        /** Not enough free space for the smaller copy: the container waits. */
        NO_ROOM,
        /** A record failed its checks: the container stays as it is, for verify to report. */
        DAMAGED,
        /** The bucket holds the container under retention: a copy could not replace it, so it stays as it is. */
        HELD
    }

    static Recompression of(Outcome outcome, int container) {
        return new Recompression(outcome, container, 0, 0);
    }

    /** Whether the step finished with its container, so the next one can follow at once. */
    public boolean settled() {
        return outcome == Outcome.REWRITTEN || outcome == Outcome.ALREADY_SMALL || outcome == Outcome.DAMAGED || outcome == Outcome.HELD;
    }
}
