package io.gpdedup.store.engine;

import java.time.Duration;

/**
 * A storage unit another store holds now (its lease in the bucket is live), so this store may not
 * open it. Says who holds it and how soon it is worth looking again.
 */
public class UnitHeldException extends StoreException {
    private static final long serialVersionUID = 1L;

    private final String holder;
    private final Duration lookAgainAfter;

    public UnitHeldException(String message, String holder, Duration lookAgainAfter) {
        super(message);
        this.holder = holder;
        this.lookAgainAfter = lookAgainAfter;
    }

    /** The store that holds the unit, in words ("the store on host ... (pid ..., store id ...)"). */
    public String holder() {
        return holder;
    }

    /** How long a standby waits before it reads the unit's lease again. */
    public Duration lookAgainAfter() {
        return lookAgainAfter;
    }
}
