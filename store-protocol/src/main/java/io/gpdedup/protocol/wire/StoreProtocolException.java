package io.gpdedup.protocol.wire;

/** A peer broke the protocol; the code says how, and whether the connection must close. */
public class StoreProtocolException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final ErrorCode code;

    public StoreProtocolException(ErrorCode code, String message) {
        super(message);
        this.code = code;
    }

    public ErrorCode code() {
        return code;
    }
}
