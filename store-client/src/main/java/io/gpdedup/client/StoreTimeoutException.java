package io.gpdedup.client;

/** The server stayed silent longer than the read timeout; the connection was dropped. */
public class StoreTimeoutException extends StoreConnectionLostException {
    private static final long serialVersionUID = 1L;

    StoreTimeoutException(String message) {
        super(message);
    }
}
