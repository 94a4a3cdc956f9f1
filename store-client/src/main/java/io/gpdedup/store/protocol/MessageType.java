package io.gpdedup.store.protocol;

/** The type byte of a frame (docs/protocol.md section 4). */
public enum MessageType {
    HELLO(0x01),
    AUTH(0x02),
    BEGIN_BACKUP(0x03),
    MISSING(0x04),
    PUT_CHUNKS(0x05),
    APPEND_RECIPE(0x06),
    COMMIT(0x07),
    ABORT(0x08),
    GET_RECIPE(0x09),
    GET_CHUNKS(0x0A),
    LIST(0x0B),
    DELETE(0x0C),
    STATS(0x0D),
    VERIFY(0x0E),
    GC(0x0F),
    PING(0x10),
    DELETE_OBJECT(0x11),
    REPLICATE(0x12, ProtocolVersions.V2),
    REPLICATION_STATUS(0x13, ProtocolVersions.V2),
    SYNC(0x14, ProtocolVersions.V3),
    SETTINGS(0x15, ProtocolVersions.V3),

    OK(0x80),
    HELLO_OK(0x81),
    AUTH_OK(0x82),
    LEASE(0x83),
    MISSING_BITMAP(0x84),
    RECIPE(0x85),
    NOT_FOUND(0x86),
    CHUNKS(0x87),
    OBJECTS(0x88),
    COUNT(0x89),
    STATS_REPLY(0x8A),
    VERIFY_REPLY(0x8B),
    GC_REPLY(0x8C),
    REPLICATION_QUEUED(0x8D, ProtocolVersions.V2),
    REPLICATION_JOBS(0x8E, ProtocolVersions.V2),
    SETTINGS_REPLY(0x8F, ProtocolVersions.V3),
    ERROR(0xFF);

    private static final MessageType[] BY_CODE = new MessageType[256];

    static {
        for (MessageType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final int since;

    MessageType(int code) {
        this(code, ProtocolVersions.V1);
    }

    MessageType(int code, int since) {
        this.code = code;
        this.since = since;
    }

    public int code() {
        return code;
    }

    /** The first protocol version with this type: a connection that agreed on an older one must not use it. */
    public int sinceVersion() {
        return since;
    }

    public boolean isReply() {
        return code >= 0x80;
    }

    /** Whether a reply of this type may be split over several frames with the MORE flag. */
    public boolean splittable() {
        return this == RECIPE || this == CHUNKS || this == OBJECTS || this == REPLICATION_JOBS;
    }

    /**
     * Requests that run one at a time per connection, in arrival order; the rest are reads that
     * may run concurrently (docs/protocol.md section 3.3).
     */
    public boolean ordered() {
        switch (this) {
            case BEGIN_BACKUP: case MISSING: case PUT_CHUNKS: case APPEND_RECIPE: case COMMIT:
            case ABORT: case DELETE: case DELETE_OBJECT: case VERIFY: case GC: case REPLICATE:
                return true;
            default:
                return false;
        }
    }

    public static MessageType ofCode(int code) {
        MessageType t = code >= 0 && code < 256 ? BY_CODE[code] : null;
        if (t == null) {
            throw new ProtocolException(ErrorCode.MALFORMED_FRAME, "unknown message type 0x" + Integer.toHexString(code));
        }
        return t;
    }
}
