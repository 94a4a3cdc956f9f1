package io.gpdedup.protocol.wire;

import static io.gpdedup.protocol.wire.ProtocolVersions.V1;
import static io.gpdedup.protocol.wire.ProtocolVersions.V2;
import static io.gpdedup.protocol.wire.ProtocolVersions.V3;
import static io.gpdedup.protocol.wire.WireType.empty;

/**
 * The type byte of a frame (docs/protocol.md section 4): its code, the protocol version that
 * introduced it, the record of its messages and their body (the record's {@code BODY}, or none).
 */
public enum MessageType {
    HELLO(0x01, V1, Request.Hello.class, Request.Hello.BODY),
    AUTH(0x02, V1, Request.Auth.class, Request.Auth.BODY),
    BEGIN_BACKUP(0x03, V1, Request.BeginBackup.class, empty(Request.BeginBackup::new)),
    MISSING(0x04, V1, Request.Missing.class, Request.Missing.BODY),
    PUT_CHUNKS(0x05, V1, Request.PutChunks.class, Request.PutChunks.BODY),
    APPEND_RECIPE(0x06, V1, Request.AppendRecipe.class, Request.AppendRecipe.BODY),
    COMMIT(0x07, V1, Request.Commit.class, Request.Commit.BODY),
    ABORT(0x08, V1, Request.Abort.class, Request.Abort.BODY),
    GET_RECIPE(0x09, V1, Request.GetRecipe.class, Request.GetRecipe.BODY),
    GET_CHUNKS(0x0A, V1, Request.GetChunks.class, Request.GetChunks.BODY),
    LIST(0x0B, V1, Request.ListObjects.class, Request.ListObjects.BODY),
    DELETE(0x0C, V1, Request.DeleteObjects.class, Request.DeleteObjects.BODY),
    STATS(0x0D, V1, Request.GetStats.class, empty(Request.GetStats::new)),
    VERIFY(0x0E, V1, Request.Verify.class, empty(Request.Verify::new)),
    GC(0x0F, V1, Request.CollectGarbage.class, empty(Request.CollectGarbage::new)),
    PING(0x10, V1, Request.Ping.class, empty(Request.Ping::new)),
    DELETE_OBJECT(0x11, V1, Request.DeleteObject.class, Request.DeleteObject.BODY),
    REPLICATE(0x12, V2, Request.Replicate.class, Request.Replicate.BODY),
    REPLICATION_STATUS(0x13, V2, Request.ReplicationStatus.class, empty(Request.ReplicationStatus::new)),
    SYNC(0x14, V3, Request.Sync.class, Request.Sync.BODY),
    SETTINGS(0x15, V3, Request.GetSettings.class, empty(Request.GetSettings::new)),

    OK(0x80, V1, Reply.Ok.class, empty(Reply.Ok::new)),
    HELLO_OK(0x81, V1, Reply.HelloOk.class, Reply.HelloOk.BODY),
    AUTH_OK(0x82, V1, Reply.AuthOk.class, empty(Reply.AuthOk::new)),
    LEASE(0x83, V1, Reply.LeaseGranted.class, Reply.LeaseGranted.BODY),
    MISSING_BITMAP(0x84, V1, Reply.MissingBitmap.class, Reply.MissingBitmap.BODY),
    RECIPE(0x85, V1, Reply.RecipePart.class, Reply.RecipePart.BODY),
    NOT_FOUND(0x86, V1, Reply.NotFound.class, empty(Reply.NotFound::new)),
    CHUNKS(0x87, V1, Reply.ChunksPart.class, Reply.ChunksPart.BODY),
    OBJECTS(0x88, V1, Reply.ObjectsPart.class, Reply.ObjectsPart.BODY),
    COUNT(0x89, V1, Reply.Count.class, Reply.Count.BODY),
    STATS_REPLY(0x8A, V1, Reply.Stats.class, Reply.Stats.BODY),
    VERIFY_REPLY(0x8B, V1, Reply.VerifyResult.class, Reply.VerifyResult.BODY),
    GC_REPLY(0x8C, V1, Reply.GcResult.class, Reply.GcResult.BODY),
    REPLICATION_QUEUED(0x8D, V2, Reply.ReplicationQueued.class, Reply.ReplicationQueued.BODY),
    REPLICATION_JOBS(0x8E, V2, Reply.ReplicationJobsPart.class, Reply.ReplicationJobsPart.BODY),
    SETTINGS_REPLY(0x8F, V3, Reply.Settings.class, Reply.Settings.BODY),
    ERROR(0xFF, V1, Reply.Error.class, Reply.Error.BODY);

    private static final MessageType[] BY_CODE = new MessageType[256];

    static {
        for (MessageType t : values()) {
            BY_CODE[t.code] = t;
        }
    }

    private static final ClassValue<MessageType> OF_RECORD = new ClassValue<>() {
        @Override
        protected MessageType computeValue(Class<?> record) {
            for (MessageType t : values()) {
                if (t.record == record) {
                    return t;
                }
            }
            throw new IllegalStateException(record.getName() + " is the record of no message type");
        }
    };

    private final int code;
    private final int since;
    private final Class<? extends Message> record;
    private final WireType<? extends Message> body;

    <M extends Message> MessageType(int code, int since, Class<M> record, WireType<M> body) {
        this.code = code;
        this.since = since;
        this.record = record;
        this.body = body;
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

    /** Bytes of the body of {@code message}, one of this type (above {@code Integer.MAX_VALUE} for a body no frame can hold). */
    long bodySize(Message message) {
        return body().size(message);
    }

    /** Writes exactly {@link #bodySize} bytes. */
    void writeBody(WireWriter out, Message message) {
        body().write(out, message);
    }

    Message readBody(WireReader in) {
        return body.read(in);
    }

    /** The type whose record {@code message} is. */
    static MessageType of(Message message) {
        return OF_RECORD.get(message.getClass());
    }

    // The constructor pairs each type with the body of its own record, and a message's type is its record's.
    @SuppressWarnings("unchecked")
    private WireType<Message> body() {
        return (WireType<Message>) body;
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
