package io.gpdedup.protocol.wire;

import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import java.util.ArrayList;
import java.util.List;

/** Messages a client sends (docs/protocol.md section 4); each owns its body on the wire. */
public sealed interface Request extends Message {

    /** A request with no body. */
    sealed interface Bodiless extends Request {
        @Override
        default long bodySize() {
            return 0;
        }

        @Override
        default void writeBody(WireWriter out) {
        }
    }

    record Hello(List<Integer> versions) implements Request {
        static final int MAX_VERSIONS = 16;
        private static final byte[] MAGIC = {'G', 'P', 'D', 'S'};

        public Hello {
            versions = List.copyOf(versions);
            if (versions.isEmpty() || versions.size() > MAX_VERSIONS) {
                throw new IllegalArgumentException("HELLO lists 1.." + MAX_VERSIONS + " versions, not " + versions.size());
            }
        }

        @Override
        public MessageType type() {
            return MessageType.HELLO;
        }

        @Override
        public long bodySize() {
            return MAGIC.length + 1 + 2L * versions.size();
        }

        @Override
        public void writeBody(WireWriter out) {
            out.bytes(MAGIC);
            out.u8(versions.size());
            for (int v : versions) {
                out.u16(v);
            }
        }

        static Hello read(WireReader in) {
            byte[] magic = in.bytes(MAGIC.length, "magic");
            if (magic[0] != MAGIC[0] || magic[1] != MAGIC[1] || magic[2] != MAGIC[2] || magic[3] != MAGIC[3]) {
                throw WireReader.malformed("HELLO without the GPDS magic");
            }
            int n = in.u8("version count");
            if (n < 1 || n > MAX_VERSIONS) {
                throw WireReader.malformed("HELLO lists " + n + " versions (1.." + MAX_VERSIONS + ")");
            }
            List<Integer> versions = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                versions.add(in.u16("version"));
            }
            return new Hello(versions);
        }
    }

    record Auth(String unit, String user, String password) implements Request {
        @Override
        public MessageType type() {
            return MessageType.AUTH;
        }

        @Override
        public long bodySize() {
            return WireWriter.strSize(unit) + WireWriter.strSize(user) + WireWriter.strSize(password);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.str(unit);
            out.str(user);
            out.str(password);
        }

        static Auth read(WireReader in) {
            return new Auth(in.str("unit"), in.str("user"), in.str("password"));
        }

        /** Never shows the password: messages end up in logs. */
        @Override
        public String toString() {
            return "Auth[unit=" + unit + ", user=" + user + "]";
        }
    }

    record BeginBackup() implements Bodiless {
        @Override
        public MessageType type() {
            return MessageType.BEGIN_BACKUP;
        }
    }

    record Missing(long lease, List<Fingerprint> fingerprints) implements Request {
        public Missing {
            fingerprints = List.copyOf(fingerprints);
        }

        @Override
        public MessageType type() {
            return MessageType.MISSING;
        }

        @Override
        public long bodySize() {
            return 8 + WireWriter.fingerprintsSize(fingerprints);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(lease);
            out.fingerprints(fingerprints);
        }

        static Missing read(WireReader in) {
            return new Missing(in.u64("lease"), in.fingerprints());
        }
    }

    record PutChunks(long lease, List<ChunkUpload> chunks) implements Request {
        public PutChunks {
            chunks = List.copyOf(chunks);
        }

        @Override
        public MessageType type() {
            return MessageType.PUT_CHUNKS;
        }

        @Override
        public long bodySize() {
            long n = 8 + 4;
            for (ChunkUpload c : chunks) {
                n += entrySize(c);
            }
            return n;
        }

        /** Bytes one chunk takes in the body: for cutting uploads into frames. */
        public static int entrySize(ChunkUpload c) {
            return Fingerprint.LENGTH + 1 + 4 + 4 + c.payloadLength();
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(lease);
            out.u32(chunks.size());
            for (ChunkUpload c : chunks) {
                out.fingerprint(c.fingerprint());
                out.u8(c.codec().id());
                out.u32(c.rawLength());
                out.u32(c.payloadLength());
                out.bytes(c.payload());
            }
        }

        static PutChunks read(WireReader in) {
            long lease = in.u64("lease");
            int n = in.count(Fingerprint.LENGTH + 9, "chunk");
            List<ChunkUpload> chunks = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                Fingerprint fp = in.fingerprint("chunk fingerprint");
                var codec = in.codec();
                int raw = in.u31("raw length");
                int len = in.u31("payload length");
                chunks.add(new ChunkUpload(fp, codec, raw, in.view(len, "payload")));
            }
            return new PutChunks(lease, chunks);
        }
    }

    record AppendRecipe(long lease, List<ChunkRef> refs) implements Request {
        public AppendRecipe {
            refs = List.copyOf(refs);
        }

        @Override
        public MessageType type() {
            return MessageType.APPEND_RECIPE;
        }

        @Override
        public long bodySize() {
            return 8 + WireWriter.refsSize(refs);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(lease);
            out.refs(refs);
        }

        static AppendRecipe read(WireReader in) {
            return new AppendRecipe(in.u64("lease"), in.refs());
        }
    }

    /**
     * The last part of a recipe (earlier parts came in APPEND_RECIPE) and the commit itself; the
     * chunk list SHA-256 is sent from version 4 on, {@code null} before; from version 5 on the stream
     * SHA-256 may be {@code null} (sent as zero bytes, {@link Recipe#streamSha256Field}).
     */
    record Commit(long lease, String objectName, long totalLength, byte[] streamSha256, List<ChunkRef> refs, byte[] chunkListSha256)
            implements Request {
        public Commit {
            if (streamSha256 != null && streamSha256.length != Fingerprint.LENGTH
                    || chunkListSha256 != null && chunkListSha256.length != Fingerprint.LENGTH) {
                throw new IllegalArgumentException("a SHA-256 is " + Fingerprint.LENGTH + " bytes");
            }
            refs = List.copyOf(refs);
        }

        public Commit(long lease, String objectName, long totalLength, byte[] streamSha256, List<ChunkRef> refs) {
            this(lease, objectName, totalLength, streamSha256, refs, null);
        }

        @Override
        public MessageType type() {
            return MessageType.COMMIT;
        }

        @Override
        public long bodySize() {
            return 8 + WireWriter.strSize(objectName) + 8 + Fingerprint.LENGTH + WireWriter.refsSize(refs)
                    + WireWriter.optionalSha256Size(chunkListSha256);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(lease);
            out.str(objectName);
            out.u64(totalLength);
            out.bytes(Recipe.streamSha256Field(streamSha256));
            out.refs(refs);
            out.optionalSha256(chunkListSha256);
        }

        static Commit read(WireReader in) {
            long lease = in.u64("lease");
            String name = in.str("object name");
            long total = in.u64("total length");
            byte[] sha = Recipe.streamSha256OfField(in.bytes(Fingerprint.LENGTH, "stream SHA-256"));
            return new Commit(lease, name, total, sha, in.refs(), in.optionalSha256("chunk list SHA-256"));
        }
    }

    record Abort(long lease) implements Request {
        @Override
        public MessageType type() {
            return MessageType.ABORT;
        }

        @Override
        public long bodySize() {
            return 8;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(lease);
        }

        static Abort read(WireReader in) {
            return new Abort(in.u64("lease"));
        }
    }

    record GetRecipe(String objectName) implements Request {
        @Override
        public MessageType type() {
            return MessageType.GET_RECIPE;
        }

        @Override
        public long bodySize() {
            return WireWriter.strSize(objectName);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.str(objectName);
        }

        static GetRecipe read(WireReader in) {
            return new GetRecipe(in.str("object name"));
        }
    }

    record GetChunks(List<Fingerprint> fingerprints) implements Request {
        public GetChunks {
            fingerprints = List.copyOf(fingerprints);
        }

        @Override
        public MessageType type() {
            return MessageType.GET_CHUNKS;
        }

        @Override
        public long bodySize() {
            return WireWriter.fingerprintsSize(fingerprints);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.fingerprints(fingerprints);
        }

        static GetChunks read(WireReader in) {
            return new GetChunks(in.fingerprints());
        }
    }

    record ListObjects(String prefix) implements Request {
        @Override
        public MessageType type() {
            return MessageType.LIST;
        }

        @Override
        public long bodySize() {
            return WireWriter.strSize(prefix);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.str(prefix);
        }

        static ListObjects read(WireReader in) {
            return new ListObjects(in.str("prefix"));
        }
    }

    /**
     * Deletes the objects under a prefix. {@code bypassGovernance} (protocol version 6 on, a
     * trailing flags byte sent only when set) asks a unit admin's delete to end governance
     * retention locks early.
     */
    record DeleteObjects(String prefix, boolean bypassGovernance) implements Request {
        public DeleteObjects(String prefix) {
            this(prefix, false);
        }

        @Override
        public MessageType type() {
            return MessageType.DELETE;
        }

        @Override
        public long bodySize() {
            return WireWriter.strSize(prefix) + DeleteFlags.size(bypassGovernance);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.str(prefix);
            DeleteFlags.write(out, bypassGovernance);
        }

        static DeleteObjects read(WireReader in) {
            return new DeleteObjects(in.str("prefix"), DeleteFlags.read(in));
        }
    }

    /** Deletes exactly one object, by its full name (a prefix delete would also hit its longer namesakes). */
    record DeleteObject(String objectName, boolean bypassGovernance) implements Request {
        public DeleteObject(String objectName) {
            this(objectName, false);
        }

        @Override
        public MessageType type() {
            return MessageType.DELETE_OBJECT;
        }

        @Override
        public long bodySize() {
            return WireWriter.strSize(objectName) + DeleteFlags.size(bypassGovernance);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.str(objectName);
            DeleteFlags.write(out, bypassGovernance);
        }

        static DeleteObject read(WireReader in) {
            return new DeleteObject(in.str("object name"), DeleteFlags.read(in));
        }
    }

    /** The optional flags byte at the end of a delete (version 6): absent means none. */
    final class DeleteFlags {
        private static final int BYPASS_GOVERNANCE = 1;

        private DeleteFlags() {
        }

        static int size(boolean bypassGovernance) {
            return bypassGovernance ? 1 : 0;
        }

        static void write(WireWriter out, boolean bypassGovernance) {
            if (bypassGovernance) {
                out.u8(BYPASS_GOVERNANCE);
            }
        }

        static boolean read(WireReader in) {
            if (in.remaining() == 0) {
                return false;
            }
            int flags = in.u8("delete flags");
            // Sent only when a flag is set: a zero byte is as malformed as an unknown flag.
            if (flags == 0 || (flags & ~BYPASS_GOVERNANCE) != 0) {
                throw new StoreProtocolException(ErrorCode.MALFORMED_FRAME, "unknown delete flags " + flags);
            }
            return (flags & BYPASS_GOVERNANCE) != 0;
        }
    }

    record GetStats() implements Bodiless {
        @Override
        public MessageType type() {
            return MessageType.STATS;
        }
    }

    record Verify() implements Bodiless {
        @Override
        public MessageType type() {
            return MessageType.VERIFY;
        }
    }

    record CollectGarbage() implements Bodiless {
        @Override
        public MessageType type() {
            return MessageType.GC;
        }
    }

    /**
     * Queues a background copy of every object under {@code sourcePrefix} (in the connection's
     * unit) to {@code target}; the store logs in there with {@code password}.
     */
    record Replicate(String sourcePrefix, ReplicaTarget target, String password) implements Request {
        @Override
        public MessageType type() {
            return MessageType.REPLICATE;
        }

        @Override
        public long bodySize() {
            return WireWriter.strSize(sourcePrefix) + target.wireSize() + WireWriter.strSize(password);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.str(sourcePrefix);
            target.write(out);
            out.str(password);
        }

        static Replicate read(WireReader in) {
            return new Replicate(in.str("source prefix"), ReplicaTarget.read(in), in.str("remote password"));
        }

        /** Never shows the password: messages end up in logs. */
        @Override
        public String toString() {
            return "Replicate[source=" + sourcePrefix + ", target=" + target + "]";
        }
    }

    /** The replication jobs of the connection's unit. */
    record ReplicationStatus() implements Bodiless {
        @Override
        public MessageType type() {
            return MessageType.REPLICATION_STATUS;
        }
    }

    record Ping() implements Bodiless {
        @Override
        public MessageType type() {
            return MessageType.PING;
        }
    }

    /**
     * Durability of every chunk the unit holds now (version 3). {@code uploaded} (version 7, a
     * flags byte sent only when set) asks for more than a spool: every such chunk in the unit's
     * lasting storage, its bucket, so that a standby taking the unit over has it.
     */
    record Sync(boolean uploaded) implements Request {
        private static final int UPLOADED = 1;

        public Sync() {
            this(false);
        }

        @Override
        public MessageType type() {
            return MessageType.SYNC;
        }

        @Override
        public long bodySize() {
            return uploaded ? 1 : 0;
        }

        @Override
        public void writeBody(WireWriter out) {
            if (uploaded) {
                out.u8(UPLOADED);
            }
        }

        static Sync read(WireReader in) {
            if (in.remaining() == 0) {
                return new Sync(false);
            }
            int flags = in.u8("sync flags");
            // Sent only when a flag is set: a zero byte is as malformed as an unknown flag.
            if (flags != UPLOADED) {
                throw new StoreProtocolException(ErrorCode.MALFORMED_FRAME, "unknown sync flags " + flags);
            }
            return new Sync(true);
        }
    }

    /** The server's settings a client adapts to (version 3). */
    record GetSettings() implements Bodiless {
        @Override
        public MessageType type() {
            return MessageType.SETTINGS;
        }
    }
}
