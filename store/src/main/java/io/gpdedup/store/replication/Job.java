package io.gpdedup.store.replication;

import io.gpdedup.protocol.wire.ReplicaTarget;
import io.gpdedup.protocol.wire.ReplicationJobStatus.State;
import io.gpdedup.protocol.wire.ReplicationJobStatus;

/**
 * One background copy as the queue keeps it: the status fields plus the password for the remote,
 * which is dropped once the job is finished. Mutated only under the queue's lock.
 */
final class Job {
    final long id;
    final String unit;
    final String source;
    final ReplicaTarget target;
    final long enqueuedAtMillis;
    String password;
    State state = State.QUEUED;
    int attempts;
    long objectsCopied;
    long chunksSent;
    long bytesSent;
    long updatedAtMillis;
    long nextAttemptAtMillis;
    String lastError = "";

    Job(long id, String unit, String source, ReplicaTarget target, String password, long enqueuedAtMillis) {
        this.id = id;
        this.unit = unit;
        this.source = source;
        this.target = target;
        this.password = password;
        this.enqueuedAtMillis = enqueuedAtMillis;
        this.updatedAtMillis = enqueuedAtMillis;
        this.nextAttemptAtMillis = enqueuedAtMillis;
    }

    boolean finished() {
        return state == State.DONE || state == State.FAILED;
    }

    /** Whether {@code other} asks for the same copy: same unit, source and target. */
    boolean sameCopy(String otherUnit, String otherSource, ReplicaTarget otherTarget) {
        return unit.equals(otherUnit) && source.equals(otherSource) && target.equals(otherTarget);
    }

    ReplicationJobStatus status() {
        return new ReplicationJobStatus(id, source, target, state, attempts, objectsCopied, chunksSent, bytesSent, enqueuedAtMillis,
                updatedAtMillis, state == State.QUEUED ? nextAttemptAtMillis : 0, lastError);
    }

    /** Never shows the password. */
    @Override
    public String toString() {
        return "replication job " + id + " (" + unit + ":" + source + " to " + target + ")";
    }
}
