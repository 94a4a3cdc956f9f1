package io.gpdedup.pg;

import java.io.IOException;
import java.sql.SQLException;

/**
 * The failure of a task run on a worker thread, thrown again on the caller's thread as the
 * exceptions this package's methods declare, so a caller sees the same failure whether the work
 * ran on one connection or on several.
 */
final class TaskFailure {
    private TaskFailure() {
    }

    /**
     * Throws {@code failure} itself if it is one of the declared or unchecked exceptions, else
     * wrapped in an {@link IOException}; does nothing for null (no task failed).
     */
    static void rethrow(Throwable failure) throws IOException, SQLException, InterruptedException {
        if (failure == null) {
            return;
        }
        if (failure instanceof IOException io) {
            throw io;
        }
        if (failure instanceof SQLException sql) {
            throw sql;
        }
        if (failure instanceof InterruptedException ie) {
            throw ie;
        }
        if (failure instanceof RuntimeException re) {
            throw re;
        }
        throw new IOException(failure);
    }
}
