package io.gpdedup.store.s3;

import io.gpdedup.store.engine.UnitHeldException;
import java.time.Duration;

/** A storage unit is served by another store, whose lease in the bucket is live. */
public final class LeaseHeldException extends UnitHeldException {
    private static final long serialVersionUID = 1L;

    LeaseHeldException(String message, String holder, Duration lookAgainAfter) {
        super(message, holder, lookAgainAfter);
    }
}
