package io.gpdedup.protocol.wire;

import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import java.util.ArrayList;
import java.util.List;

/** Messages the server sends (docs/protocol.md section 4); each owns its body on the wire. */
public sealed interface Reply extends Message {

    /** A reply with no body. */
    sealed interface Bodiless extends Reply {
        @Override
        default long bodySize() {
            return 0;
        }

        @Override
        default void writeBody(WireWriter out) {
        }
    }

    /**
     * A reply carrying a list that may be split over several frames with the MORE flag, every part
     * repeating the fixed fields; {@link ReplyParts} does the cutting.
     */
    sealed interface ListPart<E> extends Reply {
        List<E> entries();

        /** This reply with {@code entries} instead of its own. */
        ListPart<E> with(List<E> entries);

        /** Bytes one entry takes in the body. */
        int entrySize(E entry);

        /** Bytes of the body but the entries. */
        long fixedSize();

        @Override
        default long bodySize() {
            long n = fixedSize();
            for (E e : entries()) {
                n += entrySize(e);
            }
            return n;
        }
    }

    record Ok() implements Bodiless {
        @Override
        public MessageType type() {
            return MessageType.OK;
        }
    }

    record HelloOk(int version, int maxFrameLength, int maxBatch) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.HELLO_OK;
        }

        @Override
        public long bodySize() {
            return 2 + 4 + 4;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u16(version);
            out.u32(maxFrameLength);
            out.u32(maxBatch);
        }

        static HelloOk read(WireReader in) {
            return new HelloOk(in.u16("version"), in.u31("max frame length"), in.u31("max batch"));
        }
    }

    record AuthOk() implements Bodiless {
        @Override
        public MessageType type() {
            return MessageType.AUTH_OK;
        }
    }

    record LeaseGranted(long lease) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.LEASE;
        }

        @Override
        public long bodySize() {
            return 8;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(lease);
        }

        static LeaseGranted read(WireReader in) {
            return new LeaseGranted(in.u64("lease"));
        }
    }

    /** {@code missing[i]} answers the i-th fingerprint asked. */
    record MissingBitmap(boolean[] missing) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.MISSING_BITMAP;
        }

        @Override
        public long bodySize() {
            return 4 + (missing.length + 7) / 8;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u32(missing.length);
            byte[] bits = new byte[(missing.length + 7) / 8];
            for (int i = 0; i < missing.length; i++) {
                if (missing[i]) {
                    bits[i >>> 3] |= (byte) (1 << (i & 7));
                }
            }
            out.bytes(bits);
        }

        static MissingBitmap read(WireReader in) {
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
            return new MissingBitmap(missing);
        }
    }

    /**
     * One part of a recipe; every part repeats the total length and stream hash, and from version 4
     * on the chunk list SHA-256 the backup recorded ({@code null} when there is none or before version 4).
     * A recipe recorded without a stream SHA-256 has zero bytes there ({@code null} here), and goes
     * only to clients of version 4 on, which check its chunk list SHA-256 instead.
     */
    record RecipePart(long totalLength, byte[] streamSha256, List<ChunkRef> refs, byte[] chunkListSha256) implements ListPart<ChunkRef> {
        public RecipePart {
            if (streamSha256 != null && streamSha256.length != Fingerprint.LENGTH
                    || chunkListSha256 != null && chunkListSha256.length != Fingerprint.LENGTH) {
                throw new IllegalArgumentException("a SHA-256 is " + Fingerprint.LENGTH + " bytes");
            }
            refs = List.copyOf(refs);
        }

        public RecipePart(long totalLength, byte[] streamSha256, List<ChunkRef> refs) {
            this(totalLength, streamSha256, refs, null);
        }

        @Override
        public MessageType type() {
            return MessageType.RECIPE;
        }

        @Override
        public List<ChunkRef> entries() {
            return refs;
        }

        @Override
        public RecipePart with(List<ChunkRef> entries) {
            return new RecipePart(totalLength, streamSha256, entries, chunkListSha256);
        }

        @Override
        public int entrySize(ChunkRef entry) {
            return FrameCodec.REF_SIZE;
        }

        @Override
        public long fixedSize() {
            return 8 + Fingerprint.LENGTH + 4 + WireWriter.optionalSha256Size(chunkListSha256);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(totalLength);
            out.bytes(Recipe.streamSha256Field(streamSha256));
            out.refs(refs);
            out.optionalSha256(chunkListSha256);
        }

        static RecipePart read(WireReader in) {
            long total = in.u64("total length");
            byte[] sha = Recipe.streamSha256OfField(in.bytes(Fingerprint.LENGTH, "stream SHA-256"));
            return new RecipePart(total, sha, in.refs(), in.optionalSha256("chunk list SHA-256"));
        }
    }

    record NotFound() implements Bodiless {
        @Override
        public MessageType type() {
            return MessageType.NOT_FOUND;
        }
    }

    record ChunksPart(List<StoredChunk> chunks) implements ListPart<StoredChunk> {
        public ChunksPart {
            chunks = List.copyOf(chunks);
        }

        @Override
        public MessageType type() {
            return MessageType.CHUNKS;
        }

        @Override
        public List<StoredChunk> entries() {
            return chunks;
        }

        @Override
        public ChunksPart with(List<StoredChunk> entries) {
            return new ChunksPart(entries);
        }

        @Override
        public int entrySize(StoredChunk c) {
            return 1 + 4 + 4 + c.payload().length;
        }

        @Override
        public long fixedSize() {
            return 4;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u32(chunks.size());
            for (StoredChunk s : chunks) {
                out.u8(s.codec().id());
                out.u32(s.rawLength());
                out.u32(s.payload().length);
                out.bytes(s.payload());
            }
        }

        static ChunksPart read(WireReader in) {
            int n = in.count(9, "stored chunk");
            List<StoredChunk> chunks = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                var codec = in.codec();
                int raw = in.u31("raw length");
                int len = in.u31("payload length");
                chunks.add(new StoredChunk(codec, raw, in.bytes(len, "payload")));
            }
            return new ChunksPart(chunks);
        }
    }

    /**
     * Objects of a LIST. With {@code withLocks} (protocol version 6 on) the body ends with the
     * retention locks of those entries that have one: u32 count, then per lock the entry's index
     * (u32), mode (u8) and end (u64 millis). Older clients get no such section.
     */
    record ObjectsPart(List<ObjectInfo> objects, boolean withLocks) implements ListPart<ObjectInfo> {
        private static final int LOCK_BYTES = 4 + 1 + 8;

        public ObjectsPart {
            objects = List.copyOf(objects);
        }

        public ObjectsPart(List<ObjectInfo> objects) {
            this(objects, false);
        }

        @Override
        public MessageType type() {
            return MessageType.OBJECTS;
        }

        @Override
        public List<ObjectInfo> entries() {
            return objects;
        }

        @Override
        public ObjectsPart with(List<ObjectInfo> entries) {
            return new ObjectsPart(entries, withLocks);
        }

        @Override
        public int entrySize(ObjectInfo o) {
            return WireWriter.strSize(o.name()) + 16 + (withLocks && o.lock().mode() != RetentionLock.Mode.NONE ? LOCK_BYTES : 0);
        }

        @Override
        public long fixedSize() {
            return withLocks ? 8 : 4;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u32(objects.size());
            int locked = 0;
            for (ObjectInfo info : objects) {
                out.str(info.name());
                out.u64(info.length());
                out.u64(info.committedAtMillis());
                locked += info.lock().mode() == RetentionLock.Mode.NONE ? 0 : 1;
            }
            if (!withLocks) {
                return;
            }
            out.u32(locked);
            for (int i = 0; i < objects.size(); i++) {
                RetentionLock l = objects.get(i).lock();
                if (l.mode() != RetentionLock.Mode.NONE) {
                    out.u32(i);
                    out.u8(l.mode().code());
                    out.u64(l.untilMillis());
                }
            }
        }

        static ObjectsPart read(WireReader in) {
            int n = in.count(18, "object");
            List<ObjectInfo> objects = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                objects.add(new ObjectInfo(in.str("object name"), in.u64("object length"), in.u64("commit time")));
            }
            if (in.remaining() == 0) {
                return new ObjectsPart(objects, false);
            }
            int locked = in.count(LOCK_BYTES, "retention lock");
            for (int k = 0; k < locked; k++) {
                int at = in.u31("locked object index");
                if (at >= n) {
                    throw new StoreProtocolException(ErrorCode.MALFORMED_FRAME, "retention lock of object " + at + " of " + n);
                }
                ObjectInfo o = objects.get(at);
                RetentionLock lock;
                try {
                    lock = new RetentionLock(RetentionLock.Mode.ofCode(in.u8("lock mode")), in.u64("lock end"));
                } catch (IllegalArgumentException e) {
                    throw new StoreProtocolException(ErrorCode.MALFORMED_FRAME, e.getMessage());
                }
                objects.set(at, new ObjectInfo(o.name(), o.length(), o.committedAtMillis(), lock));
            }
            return new ObjectsPart(objects, true);
        }
    }

    record Count(long count) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.COUNT;
        }

        @Override
        public long bodySize() {
            return 8;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(count);
        }

        static Count read(WireReader in) {
            return new Count(in.u64("count"));
        }
    }

    record Stats(UnitStats stats) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.STATS_REPLY;
        }

        @Override
        public long bodySize() {
            return 6 * 8;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(stats.objects());
            out.u64(stats.logicalBytes());
            out.u64(stats.chunks());
            out.u64(stats.physicalBytes());
            out.u64(stats.containers());
            out.u64(stats.indexBytes());
        }

        static Stats read(WireReader in) {
            return new Stats(new UnitStats(in.u64("objects"), in.u64("logical bytes"), in.u64("chunks"),
                    in.u64("physical bytes"), in.u64("containers"), in.u64("index bytes")));
        }
    }

    record VerifyResult(VerifyReport report) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.VERIFY_REPLY;
        }

        @Override
        public long bodySize() {
            return 3 * 8 + WireWriter.stringsSize(report.damagedObjects()) + WireWriter.stringsSize(report.problems());
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(report.chunksChecked());
            out.u64(report.bytesChecked());
            out.u64(report.objectsChecked());
            out.strings(report.damagedObjects());
            out.strings(report.problems());
        }

        static VerifyResult read(WireReader in) {
            long chunks = in.u64("chunks checked");
            long bytes = in.u64("bytes checked");
            long objects = in.u64("objects checked");
            List<String> damaged = in.strings("damaged object");
            List<String> problems = in.strings("problem");
            return new VerifyResult(new VerifyReport(chunks, bytes, objects, damaged, problems));
        }
    }

    /**
     * @param idleTimeoutSeconds how long a connection may stay silent with nothing in flight before the server closes it
     * @param syncSpoolOnly version 7, a flags byte sent only when set: the unit's SYNC keeps chunks
     *     in a spool that dies with the store's host (a bucket unit), so a client that must outlive
     *     that host keeps what it stored until a SYNC with the uploaded flag covers it
     */
    record Settings(long idleTimeoutSeconds, boolean syncSpoolOnly) implements Reply {
        private static final int SYNC_SPOOL_ONLY = 1;

        public Settings {
            if (idleTimeoutSeconds < 0 || idleTimeoutSeconds > 0xffffffffL) {
                throw new IllegalArgumentException("idle timeout " + idleTimeoutSeconds + " s is not a u32");
            }
        }

        public Settings(long idleTimeoutSeconds) {
            this(idleTimeoutSeconds, false);
        }

        @Override
        public MessageType type() {
            return MessageType.SETTINGS_REPLY;
        }

        @Override
        public long bodySize() {
            return syncSpoolOnly ? 5 : 4;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u32((int) idleTimeoutSeconds);
            if (syncSpoolOnly) {
                out.u8(SYNC_SPOOL_ONLY);
            }
        }

        static Settings read(WireReader in) {
            long idle = in.u32Raw("idle timeout seconds") & 0xffffffffL;
            if (in.remaining() == 0) {
                return new Settings(idle, false);
            }
            int flags = in.u8("settings flags");
            if (flags != SYNC_SPOOL_ONLY) {
                throw new StoreProtocolException(ErrorCode.MALFORMED_FRAME, "unknown settings flags " + flags);
            }
            return new Settings(idle, true);
        }
    }

    record GcResult(GcReport report) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.GC_REPLY;
        }

        @Override
        public long bodySize() {
            return 4 * 8;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(report.chunksBefore());
            out.u64(report.chunksRemoved());
            out.u64(report.bytesReclaimed());
            out.u64(report.containersRewritten());
        }

        static GcResult read(WireReader in) {
            return new GcResult(new GcReport(in.u64("chunks before"), in.u64("chunks removed"),
                    in.u64("bytes reclaimed"), in.u64("containers rewritten")));
        }
    }

    /** A replication job was queued (or an identical one was still waiting): its id. */
    record ReplicationQueued(long jobId) implements Reply {
        @Override
        public MessageType type() {
            return MessageType.REPLICATION_QUEUED;
        }

        @Override
        public long bodySize() {
            return 8;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u64(jobId);
        }

        static ReplicationQueued read(WireReader in) {
            return new ReplicationQueued(in.u64("job id"));
        }
    }

    record ReplicationJobsPart(List<ReplicationJobStatus> jobs) implements ListPart<ReplicationJobStatus> {
        public ReplicationJobsPart {
            jobs = List.copyOf(jobs);
        }

        @Override
        public MessageType type() {
            return MessageType.REPLICATION_JOBS;
        }

        @Override
        public List<ReplicationJobStatus> entries() {
            return jobs;
        }

        @Override
        public ReplicationJobsPart with(List<ReplicationJobStatus> entries) {
            return new ReplicationJobsPart(entries);
        }

        @Override
        public int entrySize(ReplicationJobStatus job) {
            return job.wireSize();
        }

        @Override
        public long fixedSize() {
            return 4;
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u32(jobs.size());
            for (ReplicationJobStatus j : jobs) {
                j.write(out);
            }
        }

        static ReplicationJobsPart read(WireReader in) {
            int n = in.count(ReplicationJobStatus.MIN_WIRE_SIZE, "replication job");
            List<ReplicationJobStatus> jobs = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                jobs.add(ReplicationJobStatus.read(in));
            }
            return new ReplicationJobsPart(jobs);
        }
    }

    record Error(ErrorCode code, String message) implements Reply {
        /** Longer messages are cut: a wire string holds at most 65535 bytes. */
        public static final int MAX_MESSAGE_CHARS = 8192;

        public Error {
            if (message.length() > MAX_MESSAGE_CHARS) {
                message = message.substring(0, MAX_MESSAGE_CHARS) + "...";
            }
        }

        @Override
        public MessageType type() {
            return MessageType.ERROR;
        }

        @Override
        public long bodySize() {
            return 2 + WireWriter.strSize(message);
        }

        @Override
        public void writeBody(WireWriter out) {
            out.u16(code.code());
            out.str(message);
        }

        static Error read(WireReader in) {
            ErrorCode code = ErrorCode.ofCode(in.u16("error code"));
            return new Error(code, in.str("error message"));
        }
    }
}
