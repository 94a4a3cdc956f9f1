package io.gpdedup.store.engine;

import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.index.ChunkIndex;
import io.gpdedup.store.recipe.CorruptRecipeException;
import io.gpdedup.store.recipe.RecipeCatalog;
import io.gpdedup.store.recipe.RecipeFile;
import java.io.IOException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.logging.Logger;

/**
 * One mark-and-sweep over a unit, run under the unit's write lock. Mark: every chunk pinned (by
 * an open lease or a commit in flight), then every chunk a recipe references. Sweep: containers
 * with no live record are deleted first, which needs no free space; then those whose live bytes
 * fall below the configured share are rewritten (live records copied byte for byte into new
 * containers, fsynced, index repointed, old files deleted), a batch of at most one container's
 * worth at a time and only while the disk has room for the copies, so a full disk can always be
 * collected. Dead chunks in containers that are not rewritten stay indexed: they are still on
 * disk and may still deduplicate.
 *
 * <p>Crash safety: the index snapshot is deleted first, copies are fsynced before the index
 * points at them, and old files go last, so a crash leaves both copies or one, never none.
 */
final class GarbageCollector {
    private static final Logger LOG = Logger.getLogger(GarbageCollector.class.getName());

    /** A record of a container being collected; taken before the index changes, since removals move slots. */
    private record Entry(Fingerprint fingerprint, long offset, int length, boolean live) {
    }

    private record Move(Fingerprint fingerprint, int container, long offset, int length) {
    }

    private final DedupStorageUnit unit;
    private final List<Fingerprint> pins;
    private final Set<Integer> keptContainers;
    private final Map<Integer, List<Entry>> entriesByVictim = new HashMap<>();
    // One batch of rewrites: what was copied where, and the containers the copies went to.
    private final List<ContainerStore.Info> batch = new ArrayList<>();
    private final List<Move> moves = new ArrayList<>();
    private final List<Fingerprint> dead = new ArrayList<>();
    private final List<Container> written = new ArrayList<>();
    private final List<Container> created = new ArrayList<>();
    private Container out;
    private long batchBytes;
    private int removed;
    private long reclaimed;
    private int swept;

    /** {@code keptContainers}: containers all of whose records count as live (the reconnect grace). */
    GarbageCollector(DedupStorageUnit unit, List<Fingerprint> pins, Set<Integer> keptContainers) {
        this.unit = unit;
        this.pins = pins;
        this.keptContainers = keptContainers;
    }

    GcReport run() throws IOException {
        ChunkIndex index = unit.index();
        ContainerStore containers = unit.containers();
        long chunksBefore = index.size();
        containers.seal();
        BitSet live = mark(index);

        Map<Integer, long[]> liveBytes = new HashMap<>();
        index.forEach((slot, container, offset, length) -> {
            if (live.get(slot)) {
                liveBytes.computeIfAbsent(container, k -> new long[1])[0] += length;
            }
        });
        List<ContainerStore.Info> empty = new ArrayList<>();
        List<ContainerStore.Info> sparse = new ArrayList<>();
        for (ContainerStore.Info c : containers.all()) {
            long payload = c.size() - c.dataStart();
            long l = liveBytes.getOrDefault(c.id(), new long[1])[0];
            if (l == 0) {
                empty.add(c);
            } else if (l < unit.settings().gcLiveRatio() * payload) {
                sparse.add(c);
            }
        }
        if (empty.isEmpty() && sparse.isEmpty()) {
            return new GcReport(chunksBefore, 0, 0, 0);
        }
        for (ContainerStore.Info c : empty) {
            entriesByVictim.put(c.id(), new ArrayList<>());
        }
        for (ContainerStore.Info c : sparse) {
            entriesByVictim.put(c.id(), new ArrayList<>());
        }
        index.forEach((slot, container, offset, length) -> {
            List<Entry> l = entriesByVictim.get(container);
            if (l != null) {
                l.add(new Entry(index.fingerprintAt(slot), offset, length, live.get(slot)));
            }
        });

        unit.dropIndexSnapshot();
        if (!empty.isEmpty()) {
            for (ContainerStore.Info c : empty) {
                for (Entry e : entriesByVictim.get(c.id())) {
                    dead.add(e.fingerprint());
                }
            }
            batch.addAll(empty);
            finishBatch();
        }
        int skipped = 0;
        int held = 0;
        long now = System.currentTimeMillis();
        for (ContainerStore.Info c : sparse) {
            if (containers.retainedAt(c.id(), now)) {
                held++; // a copy could not replace it before its retention ends: both would be kept meanwhile
                continue;
            }
            long copies = liveBytes.get(c.id())[0];
            if (!batch.isEmpty() && batchBytes + copies > unit.settings().containerSizeBytes()) {
                finishBatch();
            }
            if (!unit.hasRoomForCopies(copies) && !batch.isEmpty()) {
                finishBatch(); // deleting the batch's containers frees what this copy needs
            }
            if (!unit.hasRoomForCopies(copies)) {
                skipped++;
                continue;
            }
            copyLive(c);
        }
        finishBatch();
        if (skipped > 0) {
            int n = skipped;
            LOG.warning(() -> "unit " + unit.unitName() + ": garbage collection left " + n + " partly live containers as they were:"
                    + " no room on disk to copy their live chunks; run it again once space is free");
        }
        if (held > 0) {
            int n = held;
            LOG.info(() -> "unit " + unit.unitName() + ": garbage collection left " + n + " partly live containers as they were:"
                    + " the bucket holds them under retention; a collection after it ends rewrites them");
        }
        unit.saveIndexSnapshot();
        return new GcReport(chunksBefore, removed, reclaimed, swept);
    }

    /** Copies the live records of {@code c} into the output containers; the index moves at {@link #finishBatch()}. */
    private void copyLive(ContainerStore.Info c) throws IOException {
        ContainerStore containers = unit.containers();
        List<Entry> entries = entriesByVictim.get(c.id());
        entries.sort((a, b) -> Long.compare(a.offset(), b.offset()));
        try {
            for (Entry e : entries) {
                Fingerprint fp = e.fingerprint();
                if (!e.live()) {
                    dead.add(fp);
                    continue;
                }
                byte[] rec = containers.read(c.id(), e.offset(), e.length());
                if (out == null || (out.size() + rec.length > unit.settings().containerSizeBytes() && out.size() > out.dataStart())) {
                    out = containers.createForCopies();
                    created.add(out);
                    reclaimed -= out.size();
                }
                if (!written.contains(out)) {
                    written.add(out);
                }
                long at = out.append(rec);
                unit.carryGrace(c.id(), out.id());
                reclaimed -= rec.length;
                moves.add(new Move(fp, out.id(), at, rec.length));
                batchBytes += rec.length;
            }
        } catch (IOException e) {
            abandonBatch();
            throw e;
        }
        batch.add(c);
    }

    /** Makes the batch's copies durable, points the index at them, then deletes the batch's containers. */
    private void finishBatch() throws IOException {
        if (batch.isEmpty()) {
            return;
        }
        ContainerStore containers = unit.containers();
        ChunkIndex index = unit.index();
        containers.syncCopies(written);
        for (Move m : moves) {
            index.relocate(m.fingerprint(), m.container(), m.offset(), m.length());
        }
        removed += index.removeAll(dead);
        List<Integer> ids = new ArrayList<>();
        for (ContainerStore.Info c : batch) {
            ids.add(c.id());
        }
        // What the bucket still holds under retention stays, indexed by nothing: a later collection removes it.
        List<Integer> kept = containers.remove(ids);
        for (ContainerStore.Info c : batch) {
            if (!kept.contains(c.id())) {
                reclaimed += c.size();
                swept++;
            }
        }
        // A durable container takes no more appends (in a bucket it is an immutable object): the next batch starts a new one.
        out = null;
        clearBatch();
    }

    /**
     * A copy failed (the disk filled meanwhile): the index never pointed at this batch's copies,
     * so the containers made for them go, and the batch's containers stay as they were.
     */
    private void abandonBatch() {
        List<Integer> ids = new ArrayList<>();
        for (Container o : created) {
            ids.add(o.id());
        }
        try {
            unit.containers().remove(ids);
        } catch (IOException e) {
            // Left holding unindexed copies; a later collection finds them mostly dead and reclaims them.
        }
        if (created.contains(out)) {
            out = null;
        }
        clearBatch();
    }

    private void clearBatch() {
        batch.clear();
        moves.clear();
        dead.clear();
        written.clear();
        created.clear();
        batchBytes = 0;
    }

    private BitSet mark(ChunkIndex index) throws IOException {
        BitSet live = new BitSet(index.slotCount());
        if (!keptContainers.isEmpty()) {
            index.forEach((slot, container, offset, length) -> {
                if (keptContainers.contains(container)) {
                    live.set(slot);
                }
            });
        }
        for (Fingerprint fp : pins) {
            int s = index.slotOf(fp);
            if (s >= 0) {
                live.set(s);
            }
        }
        RecipeCatalog catalog = unit.catalog();
        for (RecipeCatalog.Entry e : catalog.all()) {
            if (e.damaged()) {
                throw new StoreException("garbage collection refused: the recipe of " + e.name()
                        + " is damaged, so which chunks it needs is unknown; run verify");
            }
            Optional<RecipeFile.Contents> rc;
            try {
                rc = catalog.read(e);
            } catch (CorruptRecipeException ex) {
                throw new StoreException("garbage collection refused: the recipe of " + e.name() + " is damaged ("
                        + ex.getMessage() + "); run verify");
            }
            if (rc.isEmpty()) {
                continue; // deleted meanwhile
            }
            for (ChunkRef ref : rc.get().recipe().chunks()) {
                int s = index.slotOf(ref.fingerprint());
                if (s >= 0) {
                    live.set(s);
                }
            }
        }
        return live;
    }
}
