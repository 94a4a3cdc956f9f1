package io.gpdedup.pg;

import java.util.List;

/** Events of a running {@link SnapshotBackup}, for progress output and for tests that interfere on purpose. */
public interface BackupListener {
    BackupListener NONE = new BackupListener() {
    };

    /** Worker 0 holds ACCESS SHARE locks on {@code tables} and has exported its snapshot; no COPY has started. */
    default void locksHeld(List<TableRef> tables) {
    }

    /** Worker {@code worker} could not lock {@code table} NOWAIT and handed it to worker 0. */
    default void deferred(TableRef table, int worker) {
    }

    /** pg_dump failed ({@link SchemaSource#AUTO}): the schema comes from the catalogs instead. */
    default void schemaFallback(String reason) {
    }

    /** A table's data is in the plugin's hands (jobs) or in the stream (single data file). */
    default void copied(TableRef table, int worker, long rows, long bytes) {
    }
}
