package io.gpdedup.store.engine;

import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.codec.EncodedChunk;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.CorruptRecordException;
import io.gpdedup.store.index.ChunkIndex;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * Re-encodes one sealed container's chunks with zstd at a higher level than backups use, the way
 * appliances compress harder once the backup window is over: a backup spends as little CPU per
 * byte as it can, and the store wins back the bytes while it is idle. Every record is decoded and
 * checked against its fingerprint first, so a damaged one is never re-encoded into a good-looking
 * copy; the container is then left as it is for verify to report.
 *
 * <p>The CPU-heavy part runs without the unit's write lock, stopping as soon as a backup begins;
 * the swap takes the lock and does what garbage collection's rewrite does: copies fsynced before
 * the index points at them (with their new lengths), the old container deleted last, the saved
 * index dropped first. A chunk moved or removed by a collection meanwhile is left out of the copy;
 * the container goes only once no index entry points into it. A step holds one container's
 * re-encoded records in memory (at most a container's size, 64 MiB by default).
 *
 * <p>A container is judged by a sample first, every {@value #SAMPLE_STRIDE}th record in index
 * order: when re-encoding the sample saves less than a rewrite needs, the rest is left alone (a
 * container the sample misjudges is one near that line, where either choice gains or loses little).
 * Data already compressed, or shrunk so far at the backup's level that a higher one adds nothing,
 * then costs an eighth of the work instead of all of it; the sample's encodings are kept for the
 * full pass otherwise.
 */
final class Recompressor {
    /** A rewrite must save at least 1/this of the container's record bytes. */
    private static final int MIN_SAVING_DIVISOR = 50;
    /** One record in this many is re-encoded first to judge the container. */
    static final int SAMPLE_STRIDE = 8;
    /** Fewer records than this are re-encoded whole: a sample of a few says little. */
    static final int MIN_RECORDS_TO_SAMPLE = 8 * SAMPLE_STRIDE;

    /** A record of the container as the index listed it, and its re-encoded form (the same record when it did not shrink). */
    private record Planned(Fingerprint fingerprint, long offset, int oldLength, ChunkRecord record) {
    }

    private final DedupStorageUnit unit;
    private final ReentrantLock writeLock;
    private final ChunkCodec codec;
    private final BooleanSupplier keepGoing;

    /** {@code writeLock}: the unit's, taken for the swap only. */
    Recompressor(DedupStorageUnit unit, ReentrantLock writeLock, int zstdLevel, BooleanSupplier keepGoing) {
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
        if (unit.containers().retainedAt(id, System.currentTimeMillis())) {
            return Recompression.of(Recompression.Outcome.HELD, id); // the bucket would keep both until its retention ends
        }
        int n = locations.size();
        Planned[] planned = new Planned[n];
        if (n >= MIN_RECORDS_TO_SAMPLE) {
            long sampleBefore = 0;
            long sampleAfter = 0;
            for (int i = 0; i < n; i += SAMPLE_STRIDE) {
                Step step = reencode(id, locations.get(i), fingerprints.get(i));
                if (step.outcome != null) {
                    return Recompression.of(step.outcome, id);
                }
                planned[i] = step.planned;
                sampleBefore += step.planned.oldLength();
                sampleAfter += unit.containers().format().overhead() + step.planned.record().payload().length;
            }
            if (sampleBefore - sampleAfter < sampleBefore / MIN_SAVING_DIVISOR) {
                return new Recompression(Recompression.Outcome.ALREADY_SMALL, id, listed, listed);
            }
        }
        long after = 0;
        for (int i = 0; i < n; i++) {
            if (planned[i] == null) {
                Step step = reencode(id, locations.get(i), fingerprints.get(i));
                if (step.outcome != null) {
                    return Recompression.of(step.outcome, id);
                }
                planned[i] = step.planned;
            }
            after += unit.containers().format().overhead() + planned[i].record().payload().length;
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

    /** One record re-encoded, or why the container must be left: {@code outcome} is null when {@code planned} is set. */
    private record Step(Planned planned, Recompression.Outcome outcome) {
    }

    private Step reencode(int id, ChunkIndex.Location loc, Fingerprint fp) throws IOException {
        if (!keepGoing.getAsBoolean()) {
            return new Step(null, Recompression.Outcome.PAUSED);
        }
        byte[] bytes;
        try {
            bytes = unit.containers().read(id, loc.offset(), loc.length());
        } catch (ContainerStore.GoneException e) {
            return new Step(null, Recompression.Outcome.ALREADY_SMALL); // collected meanwhile: nothing left to shrink
        }
        ChunkRecord old;
        byte[] raw;
        try {
            old = unit.containers().format().decode(java.nio.ByteBuffer.wrap(bytes));
            if (!old.fingerprint().equals(fp)) {
                return new Step(null, Recompression.Outcome.DAMAGED);
            }
            raw = ChunkDecoder.decodeAndCheck(fp, Codec.ofId(old.codecId()), old.rawLength(), old.payload());
        } catch (CorruptRecordException | StoreException | IllegalArgumentException e) {
            return new Step(null, Recompression.Outcome.DAMAGED);
        }
        EncodedChunk enc = codec.encode(raw, 0, raw.length);
        ChunkRecord rec = enc.payload().length < old.payload().length
                ? new ChunkRecord(fp, enc.codec().id(), raw.length, enc.payload())
                : old;
        return new Step(new Planned(fp, loc.offset(), loc.length(), rec), null);
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
        if (containers.retainedAt(id, System.currentTimeMillis())) {
            return Recompression.of(Recompression.Outcome.HELD, id); // a locked commit took it meanwhile
        }
        if (!unit.hasRoomForCopies(after)) {
            return Recompression.of(Recompression.Outcome.NO_ROOM, id);
        }
        plan.sort(Comparator.comparingLong(Planned::offset));
        List<Planned> kept = new ArrayList<>(plan.size());
        for (Planned p : plan) {
            ChunkIndex.Location now = index.lookup(p.fingerprint());
            if (now != null && now.container() == id && now.offset() == p.offset()) {
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
                placed[i] = out.append(containers.format().encode(kept.get(i).record()));
            }
            containers.syncCopies(List.of(out));
        } catch (IOException | RuntimeException e) {
            containers.remove(List.of(out.id()));
            throw e;
        }
        unit.carryGrace(id, out.id());
        long written = 0;
        for (int i = 0; i < kept.size(); i++) {
            Planned p = kept.get(i);
            int length = containers.format().overhead() + p.record().payload().length;
            index.relocate(p.fingerprint(), out.id(), placed[i], length);
            written += length;
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
        long beforeKept = 0;
        for (Planned p : kept) {
            beforeKept += p.oldLength();
        }
        return new Recompression(Recompression.Outcome.REWRITTEN, id, beforeKept, written);
    }
}
