package io.gpdedup.client;

/** The store could not be reached (refused, unknown host, timed out connecting). */
public class StoreConnectException extends StoreClientException {
    private static final long serialVersionUID = 1L;

    private final boolean lasting;

    StoreConnectException(String message, Throwable cause) {
        this(message, cause, false);
    }

    /** {@code lasting}: trying again cannot help (a refused certificate), so no reconnect waits for it. */
    StoreConnectException(String message, Throwable cause, boolean lasting) {
        super(message, cause);
        this.lasting = lasting;
    }

    public boolean lasting() {
        return lasting;
    }
}
