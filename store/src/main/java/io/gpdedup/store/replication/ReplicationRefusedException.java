package io.gpdedup.store.replication;

/** A REPLICATE to a store the operator did not list for the unit: refused before anything connects. */
public final class ReplicationRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ReplicationRefusedException(String message) {
        super(message);
    }
}
