package io.gpdedup.store.engine;

import io.gpdedup.store.chunk.Fingerprint;
import io.gpdedup.store.codec.ChunkCodec;
import io.gpdedup.store.codec.Codec;
import io.gpdedup.store.codec.EncodedChunk;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.CorruptRecordException;
import io.gpdedup.store.container.RegionRecord;
import io.gpdedup.store.index.ChunkIndex;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Re-encodes one sealed container's chunks with zstd at a higher level than backups use, the way
 * appliances compress harder once the backup window is over: a backup spends as little CPU per
 * byte as it can, and the store wins back the bytes while it is idle. Consecutive records become
 * regions of up to a few MiB of raw bytes (the engine's {@code regionBytes}), compressed as one unit ({@link RegionRecord}):
 * a unit of megabytes finds the repeats that a chunk of tens of kilobytes cannot, and a restore
 * decodes it once for all its chunks. Every record is decoded and checked against its fingerprint
 * first, so a damaged one is never re-encoded into a good-looking copy; the container is then
 * left as it is for verify to report.
 *
 * <p>The CPU-heavy part runs without the unit's write lock, stopping as soon as a backup begins;
 * the swap takes the lock and does what garbage collection's rewrite does: copies fsynced before
 * the index points at them (with their new lengths), the old container deleted last, the saved
 * index dropped first. A chunk moved or removed by a collection meanwhile is left out of the index
 * (its bytes go along in its region); the container goes only once no index entry points into it.
 * A step holds one container's re-encoded records in memory (at most a container's size, 64 MiB
 * by default).
 *
 * <p>A container is judged by a sample first, every {@value #SAMPLE_STRIDE}th region: when
 * re-encoding the sample saves less than a rewrite needs, the rest is left alone (a container the
 * sample misjudges is one near that line, where either choice gains or loses little). Data already
 * compressed then costs an eighth of the work instead of all of it; the sample's encodings are
 * kept for the full pass otherwise. A container holding regions already is left as it is.
 */
final class Recompressor {
    /** A rewrite must save at least 1/this of the container's record bytes. */
    private static final int MIN_SAVING_DIVISOR = 50;
    /** One region in this many is encoded first to judge the container. */
    static final int SAMPLE_STRIDE = 8;
    /** Fewer regions than this are encoded whole: a sample of one says little. */
    static final int MIN_REGIONS_TO_SAMPLE = 2 * SAMPLE_STRIDE;

    /** A record of the container as the index listed it. */
    private record Listed(Fingerprint fingerprint, long offset, int length, int rawLength) {
    }

    /**
     * Consecutive records and what replaces them: one region, or (a single record) the record
     * re-encoded, or as it was when that is no smaller.
     */
    private record Planned(List<Listed> records, byte[] encoded, boolean region) {
        long oldLength() {
            long sum = 0;
            for (Listed l : records) {
                sum += l.length();
            }
            return sum;
        }
    }

    private final DiskStorageUnit unit;
    private final ReentrantLock writeLock;
    private final ChunkCodec codec;
    private final BooleanSupplier keepGoing;

    /** {@code writeLock}: the unit's, taken for the swap only. */
    Recompressor(DiskStorageUnit unit, ReentrantLock writeLock, int zstdLevel, BooleanSupplier keepGoing) {
        this.unit = unit;
        this.writeLock = writeLock;
        this.codec = ChunkCodec.of(Codec.ZSTD, zstdLevel);
        this.keepGoing = keepGoing;
    }

    /**
     * Re-encodes container {@code id}, whose records the index listed (locations and fingerprints,
     * in the same order) under the write lock; called without it.
     */
    Recompression run(int id, List<ChunkIndex.Location> locations, List<Fingerprint> fingerprints) throws IOException {
        long listed = 0;
        for (ChunkIndex.Location loc : locations) {
            listed += loc.length();
        }
        if (!unit.hasRoomForCopies(listed)) {
            return Recompression.of(Recompression.Outcome.NO_ROOM, id); // before the work: the copy is at most this big
        }
        Grouping grouping = group(id, locations, fingerprints);
        if (grouping.outcome != null) {
            return grouping.outcome == Recompression.Outcome.ALREADY_SMALL
                    ? new Recompression(Recompression.Outcome.ALREADY_SMALL, id, listed, listed)
                    : Recompression.of(grouping.outcome, id);
        }
        List<List<Listed>> groups = grouping.groups;
        int n = groups.size();
        Planned[] planned = new Planned[n];
        if (n >= MIN_REGIONS_TO_SAMPLE) {
            long sampleBefore = 0;
            long sampleAfter = 0;
            for (int i = 0; i < n; i += SAMPLE_STRIDE) {
                Step step = encode(id, groups.get(i));
                if (step.outcome != null) {
                    return Recompression.of(step.outcome, id);
                }
                planned[i] = step.planned;
                sampleBefore += step.planned.oldLength();
                sampleAfter += step.planned.encoded().length;
            }
            if (sampleBefore - sampleAfter < sampleBefore / MIN_SAVING_DIVISOR) {
                return new Recompression(Recompression.Outcome.ALREADY_SMALL, id, listed, listed);
            }
        }
        long after = 0;
        for (int i = 0; i < n; i++) {
            if (planned[i] == null) {
                Step step = encode(id, groups.get(i));
                if (step.outcome != null) {
                    return Recompression.of(step.outcome, id);
                }
                planned[i] = step.planned;
            }
            after += planned[i].encoded().length;
        }
        List<Planned> plan = new ArrayList<>(List.of(planned));
        if (listed - after < listed / MIN_SAVING_DIVISOR || plan.isEmpty()) {
            return new Recompression(Recompression.Outcome.ALREADY_SMALL, id, listed, listed);
        }
        writeLock.lock();
        try {
            return swap(id, plan, after);
        } finally {
            writeLock.unlock();
        }
    }

    /** The container's records in offset order, cut into regions; or why the container must be left. */
    private record Grouping(List<List<Listed>> groups, Recompression.Outcome outcome) {
    }

    private Grouping group(int id, List<ChunkIndex.Location> locations, List<Fingerprint> fingerprints) throws IOException {
        List<Listed> records = new ArrayList<>(locations.size());
        for (int i = 0; i < locations.size(); i++) {
            ChunkIndex.Location loc = locations.get(i);
            if (loc.length() < ChunkRecord.OVERHEAD) {
                return new Grouping(null, Recompression.Outcome.ALREADY_SMALL); // a region's member: recompressed before
            }
            records.add(new Listed(fingerprints.get(i), loc.offset(), loc.length(), 0));
        }
        records.sort(Comparator.comparingLong(Listed::offset));
        List<List<Listed>> groups = new ArrayList<>();
        List<Listed> current = new ArrayList<>();
        long currentRaw = 0;
        for (Listed r : records) {
            if (!keepGoing.getAsBoolean()) {
                return new Grouping(null, Recompression.Outcome.PAUSED);
            }
            ByteBuffer header;
            try {
                header = ByteBuffer.wrap(unit.containers().read(id, r.offset(), ChunkRecord.HEADER_BYTES));
            } catch (ContainerStore.GoneException e) {
                return new Grouping(null, Recompression.Outcome.ALREADY_SMALL); // collected meanwhile: nothing left to shrink
            }
            if (RegionRecord.startsRegion(header)) {
                return new Grouping(null, Recompression.Outcome.ALREADY_SMALL);
            }
            int raw = header.getInt(37);
            if (header.getInt(0) != ChunkRecord.MAGIC || raw < 0) {
                return new Grouping(null, Recompression.Outcome.DAMAGED);
            }
            if (!current.isEmpty() && currentRaw + raw > unit.settings().regionBytes()) {
                groups.add(current);
                current = new ArrayList<>();
                currentRaw = 0;
            }
            current.add(new Listed(r.fingerprint(), r.offset(), r.length(), raw));
            currentRaw += raw;
        }
        if (!current.isEmpty()) {
            groups.add(current);
        }
        return new Grouping(groups, null);
    }

    /** One group encoded, or why the container must be left: {@code outcome} is null when {@code planned} is set. */
    private record Step(Planned planned, Recompression.Outcome outcome) {
    }

    private Step encode(int id, List<Listed> group) throws IOException {
        long rawTotal = 0;
        for (Listed l : group) {
            rawTotal += l.rawLength();
        }
        byte[] raw = new byte[Math.toIntExact(rawTotal)];
        int at = 0;
        ChunkRecord only = null;
        for (Listed l : group) {
            if (!keepGoing.getAsBoolean()) {
                return new Step(null, Recompression.Outcome.PAUSED);
            }
            byte[] bytes;
            try {
                bytes = unit.containers().read(id, l.offset(), l.length());
            } catch (ContainerStore.GoneException e) {
                return new Step(null, Recompression.Outcome.ALREADY_SMALL); // collected meanwhile: nothing left to shrink
            }
            try {
                ChunkRecord old = ChunkRecord.decode(bytes);
                if (!old.fingerprint().equals(l.fingerprint()) || old.rawLength() != l.rawLength()) {
                    return new Step(null, Recompression.Outcome.DAMAGED);
                }
                byte[] chunk = ChunkDecoder.decodeAndCheck(l.fingerprint(), Codec.ofId(old.codecId()), old.rawLength(), old.payload());
                System.arraycopy(chunk, 0, raw, at, chunk.length);
                at += chunk.length;
                only = old;
            } catch (CorruptRecordException | StoreException | IllegalArgumentException e) {
                return new Step(null, Recompression.Outcome.DAMAGED);
            }
        }
        EncodedChunk enc = codec.encode(raw, 0, raw.length);
        if (group.size() == 1) {
            ChunkRecord rec = enc.payload().length < only.payload().length
                    ? new ChunkRecord(only.fingerprint(), enc.codec().id(), raw.length, enc.payload())
                    : only;
            return new Step(new Planned(group, rec.encode(), false), null);
        }
        List<RegionRecord.Member> members = new ArrayList<>(group.size());
        for (Listed l : group) {
            members.add(new RegionRecord.Member(l.fingerprint(), l.rawLength()));
        }
        return new Step(new Planned(group, new RegionRecord(enc.codec().id(), members, enc.payload()).encode(), true), null);
    }

    private Recompression swap(int id, List<Planned> plan, long after) throws IOException {
        ContainerStore containers = unit.containers();
        ChunkIndex index = unit.index();
        if (!keepGoing.getAsBoolean()) {
            return Recompression.of(Recompression.Outcome.PAUSED, id);
        }
        if (containers.all().stream().noneMatch(c -> c.id() == id)) {
            return Recompression.of(Recompression.Outcome.ALREADY_SMALL, id);
        }
        if (!unit.hasRoomForCopies(after)) {
            return Recompression.of(Recompression.Outcome.NO_ROOM, id);
        }
        List<Planned> kept = new ArrayList<>(plan.size());
        for (Planned p : plan) {
            if (p.records().stream().anyMatch(l -> pointsAt(index, l, id))) {
                kept.add(p); // the others were moved or removed by a collection since the records were read
            }
        }
        if (kept.isEmpty()) {
            return Recompression.of(Recompression.Outcome.ALREADY_SMALL, id);
        }
        unit.dropIndexSnapshot();
        Container out = containers.createForCopies();
        long[] placed = new long[kept.size()];
        try {
            for (int i = 0; i < kept.size(); i++) {
                placed[i] = out.append(kept.get(i).encoded());
            }
            containers.syncCopies(List.of(out));
        } catch (IOException | RuntimeException e) {
            containers.remove(List.of(out.id()));
            throw e;
        }
        long written = 0;
        long beforeKept = 0;
        for (int i = 0; i < kept.size(); i++) {
            Planned p = kept.get(i);
            int shared = p.encoded().length;
            for (Listed l : p.records()) {
                if (pointsAt(index, l, id)) {
                    index.relocate(l.fingerprint(), out.id(), placed[i], shared);
                    shared = 0; // a region's length counts once, with the first member still indexed
                }
            }
            written += p.encoded().length;
            beforeKept += p.oldLength();
        }
        long[] left = new long[1];
        index.forEach((slot, container, offset, length) -> {
            if (container == id) {
                left[0]++;
            }
        });
        // The container was sealed before its records were listed, so every entry in it was listed;
        // should one not have been, the container stays rather than lose it.
        if (left[0] == 0) {
            containers.remove(List.of(id));
        }
        return new Recompression(Recompression.Outcome.REWRITTEN, id, beforeKept, written);
    }

    private static boolean pointsAt(ChunkIndex index, Listed l, int id) {
        ChunkIndex.Location now = index.lookup(l.fingerprint());
        return now != null && now.container() == id && now.offset() == l.offset();
    }
}
