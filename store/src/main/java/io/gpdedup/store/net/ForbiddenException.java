package io.gpdedup.store.net;

/** A request the user's role in the unit does not allow; answered with FORBIDDEN. */
final class ForbiddenException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    ForbiddenException(String message) {
        super(message);
    }
}
