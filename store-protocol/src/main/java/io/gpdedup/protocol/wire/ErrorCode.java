package io.gpdedup.protocol.wire;

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
    THROTTLED(10, true),
    /** A delete or overwrite refused by a retention lock (version 6; older clients get STORE_ERROR). */
    LOCKED(11, false),
    /** A request the user's role in the unit does not allow (version 6; older clients get STORE_ERROR). */
    FORBIDDEN(12, false),
    /** A commit onto the name of a committed object the unit does not let be replaced (version 6; older clients get STORE_ERROR). */
    EXISTS(13, false),
    /**
     * A login to a unit this store does not hold now, another store holding its lease (a standby);
     * the client tries its next store address (version 7; older clients get STORE_ERROR).
     */
    NOT_SERVED(14, true);

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

    /** The protocol version that introduced this code: a connection on an older one gets {@link #STORE_ERROR} instead. */
    public int sinceVersion() {
        if (code >= NOT_SERVED.code) {
            return ProtocolVersions.V7;
        }
        return code >= LOCKED.code ? ProtocolVersions.V6 : ProtocolVersions.V1;
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
