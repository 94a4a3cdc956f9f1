package io.gpdedup.protocol.wire;

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

    /** One job in a REPLICATION_JOBS body. */
    static final WireType<ReplicationJobStatus> WIRE = WireType.of(ReplicationJobStatus::wireSize, ReplicationJobStatus::write,
            ReplicationJobStatus::read);
    /** The fewest bytes a job takes: for checking a count against what is left of a frame. */
    static final int MIN_WIRE_SIZE = 8 + 2 + 2 + 2 + 2 + 2 + 2 + 1 + 4 + 6 * 8 + 2;

    private static long wireSize(ReplicationJobStatus j) {
        return 8 + WireWriter.strSize(j.source) + ReplicaTarget.WIRE.size(j.target) + 1 + 4 + 6 * 8 + WireWriter.strSize(j.lastError);
    }

    private static void write(WireWriter out, ReplicationJobStatus j) {
        out.u64(j.id);
        out.str(j.source);
        ReplicaTarget.WIRE.write(out, j.target);
        out.u8(j.state.code());
        out.u32(j.attempts);
        out.u64(j.objectsCopied);
        out.u64(j.chunksSent);
        out.u64(j.bytesSent);
        out.u64(j.enqueuedAtMillis);
        out.u64(j.updatedAtMillis);
        out.u64(j.nextAttemptAtMillis);
        out.str(j.lastError);
    }

    private static ReplicationJobStatus read(WireReader in) {
        long id = in.u64("job id");
        String source = in.str("source prefix");
        ReplicaTarget target = ReplicaTarget.WIRE.read(in);
        int stateCode = in.u8("job state");
        State state;
        try {
            state = State.ofCode(stateCode);
        } catch (IllegalArgumentException e) {
            throw WireReader.malformed(e.getMessage());
        }
        return new ReplicationJobStatus(id, source, target, state, in.u31("attempts"), in.u64("objects copied"),
                in.u64("chunks sent"), in.u64("bytes sent"), in.u64("enqueued at"), in.u64("updated at"),
                in.u64("next attempt at"), in.str("last error"));
    }
}
