package io.gpdedup.store.container;

/** An append would take the containers past the unit's capacity; nothing was written. */
public final class CapacityExceededException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CapacityExceededException(String message) {
        super(message);
    }
}
