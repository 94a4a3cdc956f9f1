package io.gpdedup.store.engine;

import io.gpdedup.protocol.model.RetentionLock;
import java.util.concurrent.TimeUnit;

/**
 * What a unit's config asks of each commit: whether it may replace a committed object, and the
 * retention lock to record with it ({@code lockDays} days from its commit; {@code lockMode}
 * {@link RetentionLock.Mode#NONE} for none), or {@code floor} if that ends later (a copy keeps
 * the lock of what it copies).
 */
public record CommitPolicy(RetentionLock.Mode lockMode, int lockDays, boolean replaceable, RetentionLock floor) {
    /** No lock, replacement allowed: the engine's behaviour for callers that name no policy. */
    public static final CommitPolicy UNRESTRICTED = new CommitPolicy(RetentionLock.Mode.NONE, 0, true);

    public CommitPolicy(RetentionLock.Mode lockMode, int lockDays, boolean replaceable) {
        this(lockMode, lockDays, replaceable, RetentionLock.NONE);
    }

    /** Replacing unlocked objects, recording {@code lock} as it is: how a copy of a committed object keeps its lock. */
    public static CommitPolicy keeping(RetentionLock lock) {
        return new CommitPolicy(RetentionLock.Mode.NONE, 0, true, lock);
    }

    public CommitPolicy {
        java.util.Objects.requireNonNull(floor, "floor");
        if (lockMode == null) {
            throw new IllegalArgumentException("a commit policy needs a lock mode");
        }
        if (lockMode == RetentionLock.Mode.NONE ? lockDays != 0 : lockDays <= 0) {
            throw new IllegalArgumentException("retention-lock days " + lockDays + " must be a positive number of days");
        }
    }

    /** The lock an object committed at {@code commitMillis} carries. */
    public RetentionLock lockAt(long commitMillis) {
        RetentionLock own = lockMode == RetentionLock.Mode.NONE ? RetentionLock.NONE
                : new RetentionLock(lockMode, commitMillis + TimeUnit.DAYS.toMillis(lockDays));
        return own.max(floor);
    }
}
