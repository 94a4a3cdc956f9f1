package io.gpdedup.store.protocol;

/** The codes of an ERROR reply; fatal ones are followed by the server closing the connection. */
public enum ErrorCode {
    MALFORMED_FRAME(1, true),
    FRAME_TOO_LARGE(2, true),
    UNSUPPORTED_VERSION(3, true),
    AUTH_FAILED(4, true),
    PROTOCOL_VIOLATION(5, true),
    BAD_REQUEST(6, false),
    STORE_ERROR(7, false),
    SHUTTING_DOWN(8, false),
    INTERNAL(9, false),
    /** A login refused for now by the login throttle, without its password being checked. */
    THROTTLED(10, true);

    private final int code;
    private final boolean fatal;

    ErrorCode(int code, boolean fatal) {
        this.code = code;
        this.fatal = fatal;
    }

    public int code() {
        return code;
    }

    /** Whether the connection is closed after this error. */
    public boolean fatal() {
        return fatal;
    }

    public static ErrorCode ofCode(int code) {
        for (ErrorCode c : values()) {
            if (c.code == code) {
                return c;
            }
        }
        throw new StoreProtocolException(MALFORMED_FRAME, "unknown error code " + code);
    }
}
