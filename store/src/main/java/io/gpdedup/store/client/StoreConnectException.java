package io.gpdedup.store.client;

/** The store could not be reached (refused, unknown host, timed out connecting). */
public class StoreConnectException extends StoreClientException {
    private static final long serialVersionUID = 1L;

    public StoreConnectException(String message, Throwable cause) {
        super(message, cause);
    }
}
