package io.gpdedup.protocol.model;

/**
 * A committed object: its name ({@code <directory>/backups/<date>/<timestamp>/<file>} within the
 * unit), length, commit time and the retention lock recorded with it ({@link RetentionLock#NONE}
 * from a store that does not report locks).
 */
public record ObjectInfo(String name, long length, long committedAtMillis, RetentionLock lock) {
    public ObjectInfo {
        if (lock == null) {
            throw new IllegalArgumentException("lock must not be null: use RetentionLock.NONE");
        }
    }

    public ObjectInfo(String name, long length, long committedAtMillis) {
        this(name, length, committedAtMillis, RetentionLock.NONE);
    }
}
