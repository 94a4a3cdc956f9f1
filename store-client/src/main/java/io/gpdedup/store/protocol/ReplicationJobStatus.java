package io.gpdedup.store.protocol;

import java.util.Objects;

/**
 * What a store tells about one background replication job (REPLICATION_JOBS): never the password
 * it logs in to the remote with.
 *
 * @param source the object-name prefix copied, in the job's own storage unit
 * @param attempts how many times the copy was started
 * @param objectsCopied objects of the backup the remote holds so far (copied or found identical)
 * @param nextAttemptAtMillis when a queued job is tried again (ms since the epoch); 0 when not waiting
 * @param lastError why the last attempt failed; empty when none did
 */
public record ReplicationJobStatus(long id, String source, ReplicaTarget target, State state, int attempts, long objectsCopied,
        long chunksSent, long bytesSent, long enqueuedAtMillis, long updatedAtMillis, long nextAttemptAtMillis, String lastError) {

    /** A job's life: queued (waiting for its first or next attempt), running, then done or failed for good. */
    public enum State {
        QUEUED(0), RUNNING(1), DONE(2), FAILED(3);

        private final int code;

        State(int code) {
            this.code = code;
        }

        public int code() {
            return code;
        }

        public static State ofCode(int code) {
            for (State s : values()) {
                if (s.code == code) {
                    return s;
                }
            }
            throw new IllegalArgumentException("unknown replication job state " + code);
        }
    }

    public ReplicationJobStatus {
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(state, "state");
        Objects.requireNonNull(lastError, "lastError");
    }
}
