package io.gpdedup.store.net;

/** A well-formed request that cannot be served as asked; answered with BAD_REQUEST. */
final class BadRequestException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadRequestException(String message) {
        super(message);
    }
}
