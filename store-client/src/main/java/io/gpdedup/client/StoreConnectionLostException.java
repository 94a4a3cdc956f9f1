package io.gpdedup.client;

/**
 * The connection broke while requests were in flight: closed or reset by the peer or the network,
 * silent past the read timeout, or closed by a store that is stopping. Whether those requests ran is
 * unknown; a new connection may carry them on (what {@link ClientSettings#reconnectTimeout()} allows).
 */
class StoreConnectionLostException extends StoreClientException {
    private static final long serialVersionUID = 1L;

    StoreConnectionLostException(String message) {
        super(message);
    }

    StoreConnectionLostException(String message, Throwable cause) {
        super(message, cause);
    }
}
