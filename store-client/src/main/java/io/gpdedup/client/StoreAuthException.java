package io.gpdedup.client;

/** The store refused the storage unit, user or password. */
public class StoreAuthException extends StoreClientException {
    private static final long serialVersionUID = 1L;

    StoreAuthException(String message) {
        super(message);
    }
}
