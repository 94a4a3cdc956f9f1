package io.gpdedup.store.recipe;

/** A commit refused because its name holds a committed object the unit does not let be replaced, or another commit claims it. */
public final class ObjectExistsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ObjectExistsException(String message) {
        super(message);
    }
}
