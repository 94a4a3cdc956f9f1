package io.gpdedup.protocol.wire;

import static io.gpdedup.protocol.wire.Fields.field;
import static io.gpdedup.protocol.wire.Fields.fingerprintList;
import static io.gpdedup.protocol.wire.Fields.flag;
import static io.gpdedup.protocol.wire.Fields.list;
import static io.gpdedup.protocol.wire.Fields.optionalSha256;
import static io.gpdedup.protocol.wire.Fields.refList;
import static io.gpdedup.protocol.wire.Fields.str;
import static io.gpdedup.protocol.wire.Fields.streamSha256OrZeros;
import static io.gpdedup.protocol.wire.Fields.u64;

import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import java.util.ArrayList;
import java.util.List;

/**
 * Messages a client sends (docs/protocol.md section 4). Each record with a body describes it once,
 * as its {@code BODY}: its fields in wire order ({@link Fields}), or its bytes by hand where the
 * layout is irregular; {@link MessageType} pairs it with its type code.
 */
public sealed interface Request extends Message {

    record Hello(List<Integer> versions) implements Request {
        static final int MAX_VERSIONS = 16;
        private static final byte[] MAGIC = {'G', 'P', 'D', 'S'};
        static final WireType<Hello> BODY = WireType.of(h -> MAGIC.length + 1 + 2L * h.versions.size(), Hello::write, Hello::read);

        public Hello {
            versions = List.copyOf(versions);
            if (versions.isEmpty() || versions.size() > MAX_VERSIONS) {
                throw new IllegalArgumentException("HELLO lists 1.." + MAX_VERSIONS + " versions, not " + versions.size());
            }
        }

        private static void write(WireWriter out, Hello h) {
            out.bytes(MAGIC);
            out.u8(h.versions.size());
            for (int v : h.versions) {
                out.u16(v);
            }
        }

        private static Hello read(WireReader in) {
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
        static final WireType<Auth> BODY = Fields.of(Auth::new, str("unit", Auth::unit), str("user", Auth::user), str("password", Auth::password));

        /** Never shows the password: messages end up in logs. */
        @Override
        public String toString() {
            return "Auth[unit=" + unit + ", user=" + user + "]";
        }
    }

    record BeginBackup() implements Request {
    }

    record Missing(long lease, List<Fingerprint> fingerprints) implements Request {
        static final WireType<Missing> BODY = Fields.of(Missing::new, u64("lease", Missing::lease), fingerprintList(Missing::fingerprints));

        public Missing {
            fingerprints = List.copyOf(fingerprints);
        }
    }

    record PutChunks(long lease, List<ChunkUpload> chunks) implements Request {
        private static final WireType<ChunkUpload> ENTRY = WireType.of(PutChunks::entrySize, PutChunks::write, PutChunks::read);
        static final WireType<PutChunks> BODY = Fields.of(PutChunks::new, u64("lease", PutChunks::lease),
                list("chunk", Fingerprint.LENGTH + 9, PutChunks::chunks, ENTRY));

        public PutChunks {
            chunks = List.copyOf(chunks);
        }

        /** Bytes one chunk takes in the body: for cutting uploads into frames. */
        public static int entrySize(ChunkUpload c) {
            return Fingerprint.LENGTH + 1 + 4 + 4 + c.payloadLength();
        }

        private static void write(WireWriter out, ChunkUpload c) {
            out.fingerprint(c.fingerprint());
            out.u8(c.codec().id());
            out.u32(c.rawLength());
            out.u32(c.payloadLength());
            out.bytes(c.payload());
        }

        private static ChunkUpload read(WireReader in) {
            Fingerprint fp = in.fingerprint("chunk fingerprint");
            var codec = in.codec();
            int raw = in.u31("raw length");
            int len = in.u31("payload length");
            return new ChunkUpload(fp, codec, raw, in.view(len, "payload"));
        }
    }

    record AppendRecipe(long lease, List<ChunkRef> refs) implements Request {
        static final WireType<AppendRecipe> BODY = Fields.of(AppendRecipe::new, u64("lease", AppendRecipe::lease), refList(AppendRecipe::refs));

        public AppendRecipe {
            refs = List.copyOf(refs);
        }
    }

    /**
     * The last part of a recipe (earlier parts came in APPEND_RECIPE) and the commit itself; the
     * chunk list SHA-256 is sent from version 4 on, {@code null} before; from version 5 on the stream
     * SHA-256 may be {@code null} (sent as zero bytes, {@link Recipe#streamSha256Field}).
     */
    record Commit(long lease, String objectName, long totalLength, byte[] streamSha256, List<ChunkRef> refs, byte[] chunkListSha256)
            implements Request {
        static final WireType<Commit> BODY = Fields.of(Commit::new, u64("lease", Commit::lease), str("object name", Commit::objectName),
                u64("total length", Commit::totalLength), streamSha256OrZeros(Commit::streamSha256), refList(Commit::refs),
                optionalSha256("chunk list SHA-256", Commit::chunkListSha256));

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
    }

    record Abort(long lease) implements Request {
        static final WireType<Abort> BODY = Fields.of(Abort::new, u64("lease", Abort::lease));
    }

    record GetRecipe(String objectName) implements Request {
        static final WireType<GetRecipe> BODY = Fields.of(GetRecipe::new, str("object name", GetRecipe::objectName));
    }

    record GetChunks(List<Fingerprint> fingerprints) implements Request {
        static final WireType<GetChunks> BODY = Fields.of(GetChunks::new, fingerprintList(GetChunks::fingerprints));

        public GetChunks {
            fingerprints = List.copyOf(fingerprints);
        }
    }

    record ListObjects(String prefix) implements Request {
        static final WireType<ListObjects> BODY = Fields.of(ListObjects::new, str("prefix", ListObjects::prefix));
    }

    /**
     * Deletes the objects under a prefix. {@code bypassGovernance} (protocol version 6 on, a
     * trailing flags byte sent only when set) asks a unit admin's delete to end governance
     * retention locks early.
     */
    record DeleteObjects(String prefix, boolean bypassGovernance) implements Request {
        static final WireType<DeleteObjects> BODY = Fields.of(DeleteObjects::new, str("prefix", DeleteObjects::prefix),
                flag("delete flags", DeleteObjects::bypassGovernance));

        public DeleteObjects(String prefix) {
            this(prefix, false);
        }
    }

    /** Deletes exactly one object, by its full name (a prefix delete would also hit its longer namesakes). */
    record DeleteObject(String objectName, boolean bypassGovernance) implements Request {
        static final WireType<DeleteObject> BODY = Fields.of(DeleteObject::new, str("object name", DeleteObject::objectName),
                flag("delete flags", DeleteObject::bypassGovernance));

        public DeleteObject(String objectName) {
            this(objectName, false);
        }
    }

    record GetStats() implements Request {
    }

    record Verify() implements Request {
    }

    record CollectGarbage() implements Request {
    }

    /**
     * Queues a background copy of every object under {@code sourcePrefix} (in the connection's
     * unit) to {@code target}; the store logs in there with {@code password}.
     */
    record Replicate(String sourcePrefix, ReplicaTarget target, String password) implements Request {
        static final WireType<Replicate> BODY = Fields.of(Replicate::new, str("source prefix", Replicate::sourcePrefix),
                field(Replicate::target, ReplicaTarget.WIRE), str("remote password", Replicate::password));

        /** Never shows the password: messages end up in logs. */
        @Override
        public String toString() {
            return "Replicate[source=" + sourcePrefix + ", target=" + target + "]";
        }
    }

    /** The replication jobs of the connection's unit. */
    record ReplicationStatus() implements Request {
    }

    record Ping() implements Request {
    }

    /**
     * Durability of every chunk the unit holds now (version 3). {@code uploaded} (version 7, a
     * flags byte sent only when set) asks for more than a spool: every such chunk in the unit's
     * lasting storage, its bucket, so that a standby taking the unit over has it.
     */
    record Sync(boolean uploaded) implements Request {
        static final WireType<Sync> BODY = Fields.of(Sync::new, flag("sync flags", Sync::uploaded));

        public Sync() {
            this(false);
        }
    }

    /** The server's settings a client adapts to (version 3). */
    record GetSettings() implements Request {
    }
}
