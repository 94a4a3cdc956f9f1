package io.gpdedup.store.protocol;

import io.gpdedup.store.Fingerprint;
import io.gpdedup.store.engine.ChunkRef;
import io.gpdedup.store.engine.GcReport;
import io.gpdedup.store.engine.ObjectInfo;
import io.gpdedup.store.engine.StoredChunk;
import io.gpdedup.store.engine.UnitStats;
import io.gpdedup.store.engine.VerifyReport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * The one codec of the protocol (docs/protocol.md): frames to bytes and back. A frame on the wire
 * is a 4-byte length followed by that many bytes; {@link #decode} takes those bytes, {@link #encode}
 * produces the whole frame including the length.
 */
public final class FrameCodec {
    /** Size of the length field that precedes every frame. */
    public static final int LENGTH_FIELD = 4;
    /** Type, flags and request id: the smallest possible frame length. */
    public static final int HEADER = 6;
    /** The largest frame length a server accepts before the client has authenticated. */
    public static final int PRE_AUTH_MAX_FRAME = 4096;
    public static final int DEFAULT_MAX_FRAME = 16 << 20;
    /** Bytes of one chunk ref (fingerprint and length) in a recipe. */
    public static final int REF_SIZE = Fingerprint.LENGTH + 4;

    private static final int FLAG_MORE = 1;
    private static final byte[] MAGIC = {'G', 'P', 'D', 'S'};
    private static final int MAX_HELLO_VERSIONS = 16;

    private FrameCodec() {
    }

    /** The frame as it goes on the wire, length field included; position 0, limit = its size. */
    public static ByteBuffer encode(Frame frame) {
        int length = frameLength(frame);
        ByteBuffer buf = ByteBuffer.allocate(LENGTH_FIELD + length);
        buf.putInt(length);
        buf.put((byte) frame.type().code());
        buf.put((byte) (frame.more() ? FLAG_MORE : 0));
        buf.putInt(frame.requestId());
        writeBody(frame.message(), new WireWriter(buf));
        if (buf.hasRemaining()) {
            throw new IllegalStateException(frame.type() + ": wrote " + buf.position() + " of " + buf.capacity() + " bytes");
        }
        return buf.flip();
    }

    /** The value of the length field for this frame: header plus body. */
    public static int frameLength(Frame frame) {
        long n = HEADER + (long) bodySize(frame.message());
        if (n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(frame.type() + " does not fit in a frame");
        }
        return (int) n;
    }

    /**
     * Decodes the bytes that followed a frame's length field (all of them, and only them).
     *
     * @throws ProtocolException if they break docs/protocol.md
     */
    public static Frame decode(ByteBuffer frameBytes) {
        WireReader in = new WireReader(frameBytes);
        MessageType type = MessageType.ofCode(in.u8("type"));
        int flags = in.u8("flags");
        int requestId = in.u32Raw("request id");
        if ((flags & ~FLAG_MORE) != 0) {
            throw WireReader.malformed("reserved flag bits set: 0x" + Integer.toHexString(flags));
        }
        boolean more = (flags & FLAG_MORE) != 0;
        if (more && !type.splittable()) {
            throw WireReader.malformed(type + " cannot carry the MORE flag");
        }
        Message message = readBody(type, in);
        in.end(type);
        return new Frame(requestId, more, message);
    }

    // Entry sizes, for splitting batches so that each frame stays under the max frame length.

    public static int uploadSize(ChunkUpload c) {
        return Fingerprint.LENGTH + 1 + 4 + 4 + c.payload().length;
    }

    public static int storedChunkSize(StoredChunk c) {
        return 1 + 4 + 4 + c.payload().length;
    }

    public static int objectInfoSize(ObjectInfo o) {
        return WireWriter.strSize(o.name()) + 16;
    }

    public static int jobStatusSize(ReplicationJobStatus j) {
        return 8 + WireWriter.strSize(j.source()) + targetSize(j.target()) + 1 + 4 + 6 * 8 + WireWriter.strSize(j.lastError());
    }

    private static int targetSize(ReplicaTarget t) {
        return WireWriter.strSize(t.host()) + 2 + WireWriter.strSize(t.unit()) + WireWriter.strSize(t.user()) + WireWriter.strSize(t.prefix());
    }

    private static int bodySize(Message m) {
        switch (m.type()) {
            case HELLO:
                return 4 + 1 + 2 * ((Request.Hello) m).versions().size();
            case AUTH: {
                var a = (Request.Auth) m;
                return WireWriter.strSize(a.unit()) + WireWriter.strSize(a.user()) + WireWriter.strSize(a.password());
            }
            case BEGIN_BACKUP: case STATS: case VERIFY: case GC: case PING: case REPLICATION_STATUS: case SYNC: case SETTINGS:
            case OK: case AUTH_OK: case NOT_FOUND:
                return 0;
            case REPLICATE: {
                var r = (Request.Replicate) m;
                return WireWriter.strSize(r.sourcePrefix()) + targetSize(r.target()) + WireWriter.strSize(r.password());
            }
            case REPLICATION_QUEUED:
                return 8;
            case REPLICATION_JOBS: {
                long n = 4;
                for (ReplicationJobStatus j : ((Reply.ReplicationJobsPart) m).jobs()) {
                    n += jobStatusSize(j);
                }
                return clamp(n);
            }
            case MISSING:
                return 8 + 4 + Fingerprint.LENGTH * ((Request.Missing) m).fingerprints().size();
            case PUT_CHUNKS: {
                long n = 8 + 4;
                for (ChunkUpload c : ((Request.PutChunks) m).chunks()) {
                    n += uploadSize(c);
                }
                return clamp(n);
            }
            case APPEND_RECIPE:
                return clamp(8 + 4 + (long) REF_SIZE * ((Request.AppendRecipe) m).refs().size());
            case COMMIT: {
                var c = (Request.Commit) m;
                return clamp(8 + WireWriter.strSize(c.objectName()) + 8 + Fingerprint.LENGTH + 4 + (long) REF_SIZE * c.refs().size()
                        + optionalSha256Size(c.chunkListSha256()));
            }
            case ABORT:
                return 8;
            case GET_RECIPE:
                return WireWriter.strSize(((Request.GetRecipe) m).objectName());
            case GET_CHUNKS:
                return 4 + Fingerprint.LENGTH * ((Request.GetChunks) m).fingerprints().size();
            case LIST:
                return WireWriter.strSize(((Request.ListObjects) m).prefix());
            case DELETE:
                return WireWriter.strSize(((Request.DeleteObjects) m).prefix());
            case DELETE_OBJECT:
                return WireWriter.strSize(((Request.DeleteObject) m).objectName());
            case HELLO_OK:
                return 2 + 4 + 4;
            case LEASE: case COUNT:
                return 8;
            case MISSING_BITMAP:
                return 4 + (((Reply.MissingBitmap) m).missing().length + 7) / 8;
            case RECIPE: {
                var r = (Reply.RecipePart) m;
                return clamp(8 + Fingerprint.LENGTH + 4 + (long) REF_SIZE * r.refs().size() + optionalSha256Size(r.chunkListSha256()));
            }
            case CHUNKS: {
                long n = 4;
                for (StoredChunk c : ((Reply.ChunksPart) m).chunks()) {
                    n += storedChunkSize(c);
                }
                return clamp(n);
            }
            case OBJECTS: {
                long n = 4;
                for (ObjectInfo o : ((Reply.ObjectsPart) m).objects()) {
                    n += objectInfoSize(o);
                }
                return clamp(n);
            }
            case STATS_REPLY:
                return 6 * 8;
            case VERIFY_REPLY: {
                VerifyReport r = ((Reply.VerifyResult) m).report();
                long n = 3 * 8 + 4 + 4;
                for (String s : r.damagedObjects()) {
                    n += WireWriter.strSize(s);
                }
                for (String s : r.problems()) {
                    n += WireWriter.strSize(s);
                }
                return clamp(n);
            }
            case GC_REPLY:
                return 4 * 8;
            case SETTINGS_REPLY:
                return 4;
            case ERROR:
                return 2 + WireWriter.strSize(((Reply.Error) m).message());
            default:
                throw new IllegalStateException("no size for " + m.type());
        }
    }

    private static int clamp(long n) {
        return n > Integer.MAX_VALUE ? Integer.MAX_VALUE : (int) n;
    }

    private static void writeBody(Message m, WireWriter out) {
        switch (m.type()) {
            case HELLO: {
                var h = (Request.Hello) m;
                out.bytes(MAGIC);
                out.u8(h.versions().size());
                for (int v : h.versions()) {
                    out.u16(v);
                }
                break;
            }
            case AUTH: {
                var a = (Request.Auth) m;
                out.str(a.unit());
                out.str(a.user());
                out.str(a.password());
                break;
            }
            case BEGIN_BACKUP: case STATS: case VERIFY: case GC: case PING: case REPLICATION_STATUS: case SYNC: case SETTINGS:
            case OK: case AUTH_OK: case NOT_FOUND:
                break;
            case REPLICATE: {
                var r = (Request.Replicate) m;
                out.str(r.sourcePrefix());
                writeTarget(r.target(), out);
                out.str(r.password());
                break;
            }
            case REPLICATION_QUEUED:
                out.u64(((Reply.ReplicationQueued) m).jobId());
                break;
            case REPLICATION_JOBS: {
                var jobs = ((Reply.ReplicationJobsPart) m).jobs();
                out.u32(jobs.size());
                for (ReplicationJobStatus j : jobs) {
                    out.u64(j.id());
                    out.str(j.source());
                    writeTarget(j.target(), out);
                    out.u8(j.state().code());
                    out.u32(j.attempts());
                    out.u64(j.objectsCopied());
                    out.u64(j.chunksSent());
                    out.u64(j.bytesSent());
                    out.u64(j.enqueuedAtMillis());
                    out.u64(j.updatedAtMillis());
                    out.u64(j.nextAttemptAtMillis());
                    out.str(j.lastError());
                }
                break;
            }
            case MISSING: {
                var q = (Request.Missing) m;
                out.u64(q.lease());
                writeFingerprints(q.fingerprints(), out);
                break;
            }
            case PUT_CHUNKS: {
                var p = (Request.PutChunks) m;
                out.u64(p.lease());
                out.u32(p.chunks().size());
                for (ChunkUpload c : p.chunks()) {
                    out.fingerprint(c.fingerprint());
                    out.u8(c.codec().id());
                    out.u32(c.rawLength());
                    out.u32(c.payload().length);
                    out.bytes(c.payload());
                }
                break;
            }
            case APPEND_RECIPE: {
                var a = (Request.AppendRecipe) m;
                out.u64(a.lease());
                writeRefs(a.refs(), out);
                break;
            }
            case COMMIT: {
                var c = (Request.Commit) m;
                out.u64(c.lease());
                out.str(c.objectName());
                out.u64(c.totalLength());
                out.bytes(c.streamSha256());
                writeRefs(c.refs(), out);
                writeOptionalSha256(c.chunkListSha256(), out);
                break;
            }
            case ABORT:
                out.u64(((Request.Abort) m).lease());
                break;
            case GET_RECIPE:
                out.str(((Request.GetRecipe) m).objectName());
                break;
            case GET_CHUNKS:
                writeFingerprints(((Request.GetChunks) m).fingerprints(), out);
                break;
            case LIST:
                out.str(((Request.ListObjects) m).prefix());
                break;
            case DELETE:
                out.str(((Request.DeleteObjects) m).prefix());
                break;
            case DELETE_OBJECT:
                out.str(((Request.DeleteObject) m).objectName());
                break;
            case HELLO_OK: {
                var h = (Reply.HelloOk) m;
                out.u16(h.version());
                out.u32(h.maxFrameLength());
                out.u32(h.maxBatch());
                break;
            }
            case LEASE:
                out.u64(((Reply.LeaseGranted) m).lease());
                break;
            case COUNT:
                out.u64(((Reply.Count) m).count());
                break;
            case MISSING_BITMAP: {
                boolean[] missing = ((Reply.MissingBitmap) m).missing();
                out.u32(missing.length);
                byte[] bits = new byte[(missing.length + 7) / 8];
                for (int i = 0; i < missing.length; i++) {
                    if (missing[i]) {
                        bits[i >>> 3] |= (byte) (1 << (i & 7));
                    }
                }
                out.bytes(bits);
                break;
            }
            case RECIPE: {
                var r = (Reply.RecipePart) m;
                out.u64(r.totalLength());
                out.bytes(r.streamSha256());
                writeRefs(r.refs(), out);
                writeOptionalSha256(r.chunkListSha256(), out);
                break;
            }
            case CHUNKS: {
                var c = (Reply.ChunksPart) m;
                out.u32(c.chunks().size());
                for (StoredChunk s : c.chunks()) {
                    out.u8(s.codec().id());
                    out.u32(s.rawLength());
                    out.u32(s.payload().length);
                    out.bytes(s.payload());
                }
                break;
            }
            case OBJECTS: {
                var o = (Reply.ObjectsPart) m;
                out.u32(o.objects().size());
                for (ObjectInfo info : o.objects()) {
                    out.str(info.name());
                    out.u64(info.length());
                    out.u64(info.committedAtMillis());
                }
                break;
            }
            case STATS_REPLY: {
                UnitStats s = ((Reply.Stats) m).stats();
                out.u64(s.objects());
                out.u64(s.logicalBytes());
                out.u64(s.chunks());
                out.u64(s.physicalBytes());
                out.u64(s.containers());
                out.u64(s.indexBytes());
                break;
            }
            case VERIFY_REPLY: {
                VerifyReport r = ((Reply.VerifyResult) m).report();
                out.u64(r.chunksChecked());
                out.u64(r.bytesChecked());
                out.u64(r.objectsChecked());
                writeStrings(r.damagedObjects(), out);
                writeStrings(r.problems(), out);
                break;
            }
            case SETTINGS_REPLY:
                out.u32((int) ((Reply.Settings) m).idleTimeoutSeconds());
                break;
            case GC_REPLY: {
                GcReport g = ((Reply.GcResult) m).report();
                out.u64(g.chunksBefore());
                out.u64(g.chunksRemoved());
                out.u64(g.bytesReclaimed());
                out.u64(g.containersRewritten());
                break;
            }
            case ERROR: {
                var e = (Reply.Error) m;
                out.u16(e.code().code());
                out.str(e.message());
                break;
            }
            default:
                throw new IllegalStateException("no encoding for " + m.type());
        }
    }

    private static void writeTarget(ReplicaTarget t, WireWriter out) {
        out.str(t.host());
        out.u16(t.port());
        out.str(t.unit());
        out.str(t.user());
        out.str(t.prefix());
    }

    private static ReplicaTarget readTarget(WireReader in) {
        String host = in.str("remote host");
        int port = in.u16("remote port");
        String unit = in.str("remote unit");
        String user = in.str("remote user");
        String prefix = in.str("target prefix");
        if (port == 0) {
            throw WireReader.malformed("remote port 0");
        }
        return new ReplicaTarget(host, port, unit, user, prefix);
    }

    private static void writeFingerprints(List<Fingerprint> fps, WireWriter out) {
        out.u32(fps.size());
        for (Fingerprint fp : fps) {
            out.fingerprint(fp);
        }
    }

    /** A field added at the end of a body in a later version: present or absent, never empty. */
    private static void writeOptionalSha256(byte[] sha, WireWriter out) {
        if (sha != null) {
            out.bytes(sha);
        }
    }

    private static int optionalSha256Size(byte[] sha) {
        return sha == null ? 0 : Fingerprint.LENGTH;
    }

    private static byte[] readOptionalSha256(WireReader in, String what) {
        return in.remaining() == 0 ? null : in.bytes(Fingerprint.LENGTH, what);
    }

    private static void writeRefs(List<ChunkRef> refs, WireWriter out) {
        out.u32(refs.size());
        for (ChunkRef r : refs) {
            out.ref(r);
        }
    }

    private static void writeStrings(List<String> strings, WireWriter out) {
        out.u32(strings.size());
        for (String s : strings) {
            out.str(s);
        }
    }

    private static Message readBody(MessageType type, WireReader in) {
        switch (type) {
            case HELLO: {
                byte[] magic = in.bytes(4, "magic");
                if (magic[0] != MAGIC[0] || magic[1] != MAGIC[1] || magic[2] != MAGIC[2] || magic[3] != MAGIC[3]) {
                    throw WireReader.malformed("HELLO without the GPDS magic");
                }
                int n = in.u8("version count");
                if (n < 1 || n > MAX_HELLO_VERSIONS) {
                    throw WireReader.malformed("HELLO lists " + n + " versions (1.." + MAX_HELLO_VERSIONS + ")");
                }
                List<Integer> versions = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    versions.add(in.u16("version"));
                }
                return new Request.Hello(versions);
            }
            case AUTH:
                return new Request.Auth(in.str("unit"), in.str("user"), in.str("password"));
            case BEGIN_BACKUP:
                return new Request.BeginBackup();
            case MISSING:
                return new Request.Missing(in.u64("lease"), readFingerprints(in));
            case PUT_CHUNKS: {
                long lease = in.u64("lease");
                int n = in.count(Fingerprint.LENGTH + 9, "chunk");
                List<ChunkUpload> chunks = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    Fingerprint fp = in.fingerprint("chunk fingerprint");
                    var codec = in.codec();
                    int raw = in.u31("raw length");
                    int len = in.u31("payload length");
                    chunks.add(new ChunkUpload(fp, codec, raw, in.bytes(len, "payload")));
                }
                return new Request.PutChunks(lease, chunks);
            }
            case APPEND_RECIPE:
                return new Request.AppendRecipe(in.u64("lease"), readRefs(in));
            case COMMIT: {
                long lease = in.u64("lease");
                String name = in.str("object name");
                long total = in.u64("total length");
                byte[] sha = in.bytes(Fingerprint.LENGTH, "stream SHA-256");
                return new Request.Commit(lease, name, total, sha, readRefs(in), readOptionalSha256(in, "chunk list SHA-256"));
            }
            case ABORT:
                return new Request.Abort(in.u64("lease"));
            case GET_RECIPE:
                return new Request.GetRecipe(in.str("object name"));
            case GET_CHUNKS:
                return new Request.GetChunks(readFingerprints(in));
            case LIST:
                return new Request.ListObjects(in.str("prefix"));
            case DELETE:
                return new Request.DeleteObjects(in.str("prefix"));
            case DELETE_OBJECT:
                return new Request.DeleteObject(in.str("object name"));
            case STATS:
                return new Request.GetStats();
            case VERIFY:
                return new Request.Verify();
            case GC:
                return new Request.CollectGarbage();
            case PING:
                return new Request.Ping();
            case REPLICATE:
                return new Request.Replicate(in.str("source prefix"), readTarget(in), in.str("remote password"));
            case REPLICATION_STATUS:
                return new Request.ReplicationStatus();
            case SYNC:
                return new Request.Sync();
            case SETTINGS:
                return new Request.GetSettings();
            case SETTINGS_REPLY:
                return new Reply.Settings(in.u32Raw("idle timeout seconds") & 0xffffffffL);
            case REPLICATION_QUEUED:
                return new Reply.ReplicationQueued(in.u64("job id"));
            case REPLICATION_JOBS: {
                int n = in.count(8 + 2 + 2 + 2 + 2 + 2 + 2 + 1 + 4 + 6 * 8 + 2, "replication job");
                List<ReplicationJobStatus> jobs = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    long id = in.u64("job id");
                    String source = in.str("source prefix");
                    ReplicaTarget target = readTarget(in);
                    int stateCode = in.u8("job state");
                    ReplicationJobStatus.State state;
                    try {
                        state = ReplicationJobStatus.State.ofCode(stateCode);
                    } catch (IllegalArgumentException e) {
                        throw WireReader.malformed(e.getMessage());
                    }
                    jobs.add(new ReplicationJobStatus(id, source, target, state, in.u31("attempts"), in.u64("objects copied"),
                            in.u64("chunks sent"), in.u64("bytes sent"), in.u64("enqueued at"), in.u64("updated at"),
                            in.u64("next attempt at"), in.str("last error")));
                }
                return new Reply.ReplicationJobsPart(jobs);
            }
            case OK:
                return new Reply.Ok();
            case HELLO_OK:
                return new Reply.HelloOk(in.u16("version"), in.u31("max frame length"), in.u31("max batch"));
            case AUTH_OK:
                return new Reply.AuthOk();
            case LEASE:
                return new Reply.LeaseGranted(in.u64("lease"));
            case MISSING_BITMAP: {
                int n = in.u31("bitmap count");
                int bytes = (int) (((long) n + 7) / 8);
                byte[] bits = in.bytes(bytes, "bitmap");
                boolean[] missing = new boolean[n];
                for (int i = 0; i < n; i++) {
                    missing[i] = (bits[i >>> 3] & (1 << (i & 7))) != 0;
                }
                if (n % 8 != 0 && (bits[bytes - 1] & 0xff) >>> (n % 8) != 0) {
                    throw WireReader.malformed("bitmap has bits set past its count");
                }
                return new Reply.MissingBitmap(missing);
            }
            case RECIPE: {
                long total = in.u64("total length");
                byte[] sha = in.bytes(Fingerprint.LENGTH, "stream SHA-256");
                return new Reply.RecipePart(total, sha, readRefs(in), readOptionalSha256(in, "chunk list SHA-256"));
            }
            case NOT_FOUND:
                return new Reply.NotFound();
            case CHUNKS: {
                int n = in.count(9, "stored chunk");
                List<StoredChunk> chunks = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    var codec = in.codec();
                    int raw = in.u31("raw length");
                    int len = in.u31("payload length");
                    chunks.add(new StoredChunk(codec, raw, in.bytes(len, "payload")));
                }
                return new Reply.ChunksPart(chunks);
            }
            case OBJECTS: {
                int n = in.count(18, "object");
                List<ObjectInfo> objects = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    objects.add(new ObjectInfo(in.str("object name"), in.u64("object length"), in.u64("commit time")));
                }
                return new Reply.ObjectsPart(objects);
            }
            case COUNT:
                return new Reply.Count(in.u64("count"));
            case STATS_REPLY:
                return new Reply.Stats(new UnitStats(in.u64("objects"), in.u64("logical bytes"), in.u64("chunks"),
                        in.u64("physical bytes"), in.u64("containers"), in.u64("index bytes")));
            case VERIFY_REPLY: {
                long chunks = in.u64("chunks checked");
                long bytes = in.u64("bytes checked");
                long objects = in.u64("objects checked");
                List<String> damaged = readStrings(in, "damaged object");
                List<String> problems = readStrings(in, "problem");
                return new Reply.VerifyResult(new VerifyReport(chunks, bytes, objects, damaged, problems));
            }
            case GC_REPLY:
                return new Reply.GcResult(new GcReport(in.u64("chunks before"), in.u64("chunks removed"),
                        in.u64("bytes reclaimed"), in.u64("containers rewritten")));
            case ERROR: {
                ErrorCode code = ErrorCode.ofCode(in.u16("error code"));
                return new Reply.Error(code, in.str("error message"));
            }
            default:
                throw new IllegalStateException("no decoding for " + type);
        }
    }

    private static List<Fingerprint> readFingerprints(WireReader in) {
        int n = in.count(Fingerprint.LENGTH, "fingerprint");
        List<Fingerprint> fps = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            fps.add(in.fingerprint("fingerprint"));
        }
        return fps;
    }

    private static List<ChunkRef> readRefs(WireReader in) {
        int n = in.count(REF_SIZE, "chunk ref");
        List<ChunkRef> refs = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            refs.add(in.ref());
        }
        return refs;
    }

    private static List<String> readStrings(WireReader in, String what) {
        int n = in.count(2, what);
        List<String> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(in.str(what));
        }
        return out;
    }
}
