package io.gpdedup.protocol.wire;

import static io.gpdedup.protocol.wire.ProtocolVersions.V1;
import static io.gpdedup.protocol.wire.ProtocolVersions.V2;
import static io.gpdedup.protocol.wire.ProtocolVersions.V3;

/**
 * The type byte of a frame (docs/protocol.md section 4): its code, the protocol version that
 * introduced it and the reader of its body.
 */
public enum MessageType {
    HELLO(0x01, V1, Request.Hello::read),
    AUTH(0x02, V1, Request.Auth::read),
    BEGIN_BACKUP(0x03, V1, in -> new Request.BeginBackup()),
    MISSING(0x04, V1, Request.Missing::read),
    PUT_CHUNKS(0x05, V1, Request.PutChunks::read),
    APPEND_RECIPE(0x06, V1, Request.AppendRecipe::read),
    COMMIT(0x07, V1, Request.Commit::read),
    ABORT(0x08, V1, Request.Abort::read),
    GET_RECIPE(0x09, V1, Request.GetRecipe::read),
    GET_CHUNKS(0x0A, V1, Request.GetChunks::read),
    LIST(0x0B, V1, Request.ListObjects::read),
    DELETE(0x0C, V1, Request.DeleteObjects::read),
    STATS(0x0D, V1, in -> new Request.GetStats()),
    VERIFY(0x0E, V1, in -> new Request.Verify()),
    GC(0x0F, V1, in -> new Request.CollectGarbage()),
    PING(0x10, V1, in -> new Request.Ping()),
    DELETE_OBJECT(0x11, V1, Request.DeleteObject::read),
    REPLICATE(0x12, V2, Request.Replicate::read),
    REPLICATION_STATUS(0x13, V2, in -> new Request.ReplicationStatus()),
    SYNC(0x14, V3, Request.Sync::read),
    SETTINGS(0x15, V3, in -> new Request.GetSettings()),

    OK(0x80, V1, in -> new Reply.Ok()),
    HELLO_OK(0x81, V1, Reply.HelloOk::read),
    AUTH_OK(0x82, V1, in -> new Reply.AuthOk()),
    LEASE(0x83, V1, Reply.LeaseGranted::read),
    MISSING_BITMAP(0x84, V1, Reply.MissingBitmap::read),
    RECIPE(0x85, V1, Reply.RecipePart::read),
    NOT_FOUND(0x86, V1, in -> new Reply.NotFound()),
    CHUNKS(0x87, V1, Reply.ChunksPart::read),
    OBJECTS(0x88, V1, Reply.ObjectsPart::read),
    COUNT(0x89, V1, Reply.Count::read),
    STATS_REPLY(0x8A, V1, Reply.Stats::read),
    VERIFY_REPLY(0x8B, V1, Reply.VerifyResult::read),
    GC_REPLY(0x8C, V1, Reply.GcResult::read),
    REPLICATION_QUEUED(0x8D, V2, Reply.ReplicationQueued::read),
    REPLICATION_JOBS(0x8E, V2, Reply.ReplicationJobsPart::read),
    SETTINGS_REPLY(0x8F, V3, Reply.Settings::read),
    ERROR(0xFF, V1, Reply.Error::read);

    /** Reads the body of a message of one type. */
    @FunctionalInterface
    interface Reader {
        Message read(WireReader in);
    }

    private static final MessageType[] BY_CODE = new MessageType[256];

    static {
        for (MessageType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private final int code;
    private final int since;
    private final Reader reader;

    MessageType(int code, int since, Reader reader) {
        this.code = code;
        this.since = since;
        this.reader = reader;
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

    /** Whether a reply of this type may be split over several frames with the MORE flag ({@link Reply.ListPart}). */
    public boolean splittable() {
        return this == RECIPE || this == CHUNKS || this == OBJECTS || this == REPLICATION_JOBS;
    }

    Message read(WireReader in) {
        return reader.read(in);
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
            throw new StoreProtocolException(ErrorCode.MALFORMED_FRAME, "unknown message type 0x" + Integer.toHexString(code));
        }
        return t;
    }
}
