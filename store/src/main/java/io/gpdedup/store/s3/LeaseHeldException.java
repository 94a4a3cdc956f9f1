package io.gpdedup.store.s3;

import io.gpdedup.store.engine.StoreException;

/** A storage unit is served by another store, whose lease in the bucket is live. */
public final class LeaseHeldException extends StoreException {
    private static final long serialVersionUID = 1L;

    public LeaseHeldException(String message) {
        super(message);
    }
}
