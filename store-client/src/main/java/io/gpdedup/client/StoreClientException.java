package io.gpdedup.client;

/** A store operation failed on the client side: connection lost, protocol broken, interrupted. */
public class StoreClientException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    StoreClientException(String message) {
        super(message);
    }

    StoreClientException(String message, Throwable cause) {
        super(message, cause);
    }
}
