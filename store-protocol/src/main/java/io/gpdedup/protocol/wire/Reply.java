package io.gpdedup.protocol.wire;

import static io.gpdedup.protocol.wire.Fields.field;
import static io.gpdedup.protocol.wire.Fields.flag;
import static io.gpdedup.protocol.wire.Fields.list;
import static io.gpdedup.protocol.wire.Fields.optionalSha256;
import static io.gpdedup.protocol.wire.Fields.refList;
import static io.gpdedup.protocol.wire.Fields.str;
import static io.gpdedup.protocol.wire.Fields.streamSha256OrZeros;
import static io.gpdedup.protocol.wire.Fields.strings;
import static io.gpdedup.protocol.wire.Fields.u16;
import static io.gpdedup.protocol.wire.Fields.u31;
import static io.gpdedup.protocol.wire.Fields.u32;
import static io.gpdedup.protocol.wire.Fields.u64;

import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import java.util.ArrayList;
import java.util.List;

/**
 * Messages the server sends (docs/protocol.md section 4). Each record with a body describes it
 * once, as its {@code BODY}: its fields in wire order ({@link Fields}), or its bytes by hand where
 * the layout is irregular; {@link MessageType} pairs it with its type code.
 */
public sealed interface Reply extends Message {

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
    }

    record Ok() implements Reply {
    }

    record HelloOk(int version, int maxFrameLength, int maxBatch) implements Reply {
        static final WireType<HelloOk> BODY = Fields.of(HelloOk::new, u16("version", HelloOk::version),
                u31("max frame length", HelloOk::maxFrameLength), u31("max batch", HelloOk::maxBatch));
    }

    record AuthOk() implements Reply {
    }

    record LeaseGranted(long lease) implements Reply {
        static final WireType<LeaseGranted> BODY = Fields.of(LeaseGranted::new, u64("lease", LeaseGranted::lease));
    }

    /** {@code missing[i]} answers the i-th fingerprint asked. */
    record MissingBitmap(boolean[] missing) implements Reply {
        static final WireType<MissingBitmap> BODY = WireType.of(m -> 4 + (m.missing.length + 7) / 8, MissingBitmap::write, MissingBitmap::read);

        private static void write(WireWriter out, MissingBitmap m) {
            boolean[] missing = m.missing;
            out.u32(missing.length);
            byte[] bits = new byte[(missing.length + 7) / 8];
            for (int i = 0; i < missing.length; i++) {
                if (missing[i]) {
                    bits[i >>> 3] |= (byte) (1 << (i & 7));
                }
            }
            out.bytes(bits);
        }

        private static MissingBitmap read(WireReader in) {
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
        static final WireType<RecipePart> BODY = Fields.of(RecipePart::new, u64("total length", RecipePart::totalLength),
                streamSha256OrZeros(RecipePart::streamSha256), refList(RecipePart::refs), optionalSha256("chunk list SHA-256", RecipePart::chunkListSha256));

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
    }

    record NotFound() implements Reply {
    }

    record ChunksPart(List<StoredChunk> chunks) implements ListPart<StoredChunk> {
        private static final WireType<StoredChunk> ENTRY = WireType.of(ChunksPart::size, ChunksPart::write, ChunksPart::read);
        static final WireType<ChunksPart> BODY = Fields.of(ChunksPart::new, list("stored chunk", 9, ChunksPart::chunks, ENTRY));

        public ChunksPart {
            chunks = List.copyOf(chunks);
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
            return size(c);
        }

        private static int size(StoredChunk c) {
            return 1 + 4 + 4 + c.payload().length;
        }

        private static void write(WireWriter out, StoredChunk s) {
            out.u8(s.codec().id());
            out.u32(s.rawLength());
            out.u32(s.payload().length);
            out.bytes(s.payload());
        }

        private static StoredChunk read(WireReader in) {
            var codec = in.codec();
            int raw = in.u31("raw length");
            int len = in.u31("payload length");
            return new StoredChunk(codec, raw, in.bytes(len, "payload"));
        }
    }

    /**
     * Objects of a LIST. With {@code withLocks} (protocol version 6 on) the body ends with the
     * retention locks of those entries that have one: u32 count, then per lock the entry's index
     * (u32), mode (u8) and end (u64 millis). Older clients get no such section.
     */
    record ObjectsPart(List<ObjectInfo> objects, boolean withLocks) implements ListPart<ObjectInfo> {
        private static final int LOCK_BYTES = 4 + 1 + 8;
        static final WireType<ObjectsPart> BODY = WireType.of(ObjectsPart::size, ObjectsPart::write, ObjectsPart::read);

        public ObjectsPart {
            objects = List.copyOf(objects);
        }

        public ObjectsPart(List<ObjectInfo> objects) {
            this(objects, false);
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

        private static long size(ObjectsPart p) {
            long n = p.withLocks ? 8 : 4;
            for (ObjectInfo o : p.objects) {
                n += p.entrySize(o);
            }
            return n;
        }

        private static void write(WireWriter out, ObjectsPart p) {
            List<ObjectInfo> objects = p.objects;
            out.u32(objects.size());
            int locked = 0;
            for (ObjectInfo info : objects) {
                out.str(info.name());
                out.u64(info.length());
                out.u64(info.committedAtMillis());
                locked += info.lock().mode() == RetentionLock.Mode.NONE ? 0 : 1;
            }
            if (!p.withLocks) {
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

        private static ObjectsPart read(WireReader in) {
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
        static final WireType<Count> BODY = Fields.of(Count::new, u64("count", Count::count));
    }

    record Stats(UnitStats stats) implements Reply {
        private static final WireType<UnitStats> STATS = Fields.of(UnitStats::new, u64("objects", UnitStats::objects),
                u64("logical bytes", UnitStats::logicalBytes), u64("chunks", UnitStats::chunks), u64("physical bytes", UnitStats::physicalBytes),
                u64("containers", UnitStats::containers), u64("index bytes", UnitStats::indexBytes));
        static final WireType<Stats> BODY = Fields.of(Stats::new, field(Stats::stats, STATS));
    }

    record VerifyResult(VerifyReport report) implements Reply {
        private static final WireType<VerifyReport> REPORT = Fields.of(VerifyReport::new, u64("chunks checked", VerifyReport::chunksChecked),
                u64("bytes checked", VerifyReport::bytesChecked), u64("objects checked", VerifyReport::objectsChecked),
                strings("damaged object", VerifyReport::damagedObjects), strings("problem", VerifyReport::problems));
        static final WireType<VerifyResult> BODY = Fields.of(VerifyResult::new, field(VerifyResult::report, REPORT));
    }

    /**
     * @param idleTimeoutSeconds how long a connection may stay silent with nothing in flight before the server closes it
     * @param syncSpoolOnly version 7, a flags byte sent only when set: the unit's SYNC keeps chunks
     *     in a spool that dies with the store's host (a bucket unit), so a client that must outlive
     *     that host keeps what it stored until a SYNC with the uploaded flag covers it
     */
    record Settings(long idleTimeoutSeconds, boolean syncSpoolOnly) implements Reply {
        static final WireType<Settings> BODY = Fields.of(Settings::new, u32("idle timeout seconds", Settings::idleTimeoutSeconds),
                flag("settings flags", Settings::syncSpoolOnly));

        public Settings {
            if (idleTimeoutSeconds < 0 || idleTimeoutSeconds > 0xffffffffL) {
                throw new IllegalArgumentException("idle timeout " + idleTimeoutSeconds + " s is not a u32");
            }
        }

        public Settings(long idleTimeoutSeconds) {
            this(idleTimeoutSeconds, false);
        }
    }

    record GcResult(GcReport report) implements Reply {
        private static final WireType<GcReport> REPORT = Fields.of(GcReport::new, u64("chunks before", GcReport::chunksBefore),
                u64("chunks removed", GcReport::chunksRemoved), u64("bytes reclaimed", GcReport::bytesReclaimed),
                u64("containers rewritten", GcReport::containersRewritten));
        static final WireType<GcResult> BODY = Fields.of(GcResult::new, field(GcResult::report, REPORT));
    }

    /** A replication job was queued (or an identical one was still waiting): its id. */
    record ReplicationQueued(long jobId) implements Reply {
        static final WireType<ReplicationQueued> BODY = Fields.of(ReplicationQueued::new, u64("job id", ReplicationQueued::jobId));
    }

    record ReplicationJobsPart(List<ReplicationJobStatus> jobs) implements ListPart<ReplicationJobStatus> {
        static final WireType<ReplicationJobsPart> BODY = Fields.of(ReplicationJobsPart::new,
                list("replication job", ReplicationJobStatus.MIN_WIRE_SIZE, ReplicationJobsPart::jobs, ReplicationJobStatus.WIRE));

        public ReplicationJobsPart {
            jobs = List.copyOf(jobs);
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
            return (int) ReplicationJobStatus.WIRE.size(job);
        }
    }

    record Error(ErrorCode code, String message) implements Reply {
        /** Longer messages are cut: a wire string holds at most 65535 bytes. */
        public static final int MAX_MESSAGE_CHARS = 8192;
        private static final WireType<ErrorCode> CODE = WireType.of(c -> 2, (out, c) -> out.u16(c.code()), in -> ErrorCode.ofCode(in.u16("error code")));
        static final WireType<Error> BODY = Fields.of(Error::new, field(Error::code, CODE), str("error message", Error::message));

        public Error {
            if (message.length() > MAX_MESSAGE_CHARS) {
                message = message.substring(0, MAX_MESSAGE_CHARS) + "...";
            }
        }
    }
}
