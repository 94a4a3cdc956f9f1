package io.gpdedup.store.engine;

import io.gpdedup.store.Fingerprint;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.ContainerSet;
import io.gpdedup.store.container.FileSync;
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

/**
 * One mark-and-sweep over a unit, run under the unit's write lock. Mark: every chunk pinned (by
 * an open lease or a commit in flight), then every chunk a recipe references. Sweep: containers whose live bytes fall below
 * the configured share are rewritten (live records copied byte for byte into new containers,
 * fsynced, index repointed, old files deleted). Dead chunks in containers that are not rewritten
 * stay indexed: they are still on disk and may still deduplicate.
 *
 * <p>Crash safety: the index snapshot is deleted first, copies are fsynced before the index
 * points at them, and old files go last, so a crash leaves both copies or one, never none.
 */
final class GarbageCollector {
    private record Slot(int slot, long offset, int length) {
    }

    private record Move(Fingerprint fingerprint, int container, long offset) {
    }

    private final DiskStorageUnit unit;
    private final List<Fingerprint> pins;

    GarbageCollector(DiskStorageUnit unit, List<Fingerprint> pins) {
        this.unit = unit;
        this.pins = pins;
    }

    GcReport run() throws IOException {
        ChunkIndex index = unit.index();
        ContainerSet containers = unit.containers();
        long chunksBefore = index.size();
        containers.seal();
        BitSet live = mark(index);

        Map<Integer, long[]> liveBytes = new HashMap<>();
        index.forEach((slot, container, offset, length) -> {
            if (live.get(slot)) {
                liveBytes.computeIfAbsent(container, k -> new long[1])[0] += length;
            }
        });
        List<Container> victims = new ArrayList<>();
        for (Container c : containers.all()) {
            long payload = c.size() - Container.HEADER_BYTES;
            long l = liveBytes.getOrDefault(c.id(), new long[1])[0];
            if (l == 0 || l < unit.settings().gcLiveRatio() * payload) {
                victims.add(c);
            }
        }
        if (victims.isEmpty()) {
            return new GcReport(chunksBefore, 0, 0, 0);
        }
        Map<Integer, List<Slot>> slotsByVictim = new HashMap<>();
        for (Container c : victims) {
            slotsByVictim.put(c.id(), new ArrayList<>());
        }
        index.forEach((slot, container, offset, length) -> {
            List<Slot> l = slotsByVictim.get(container);
            if (l != null) {
                l.add(new Slot(slot, offset, length));
            }
        });

        unit.dropIndexSnapshot();
        List<Fingerprint> dead = new ArrayList<>();
        List<Move> moves = new ArrayList<>();
        List<Container> outputs = new ArrayList<>();
        Container out = null;
        long victimBytes = 0;
        for (Container c : victims) {
            victimBytes += c.size();
            List<Slot> slots = slotsByVictim.get(c.id());
            slots.sort((a, b) -> Long.compare(a.offset(), b.offset()));
            for (Slot s : slots) {
                Fingerprint fp = index.fingerprintAt(s.slot());
                if (!live.get(s.slot())) {
                    dead.add(fp);
                    continue;
                }
                byte[] rec = c.read(s.offset(), s.length());
                if (out == null || (out.size() + rec.length > unit.settings().containerSizeBytes() && out.size() > Container.HEADER_BYTES)) {
                    out = containers.create();
                    outputs.add(out);
                }
                long at = out.append(rec);
                moves.add(new Move(fp, out.id(), at));
            }
        }
        for (Container o : outputs) {
            o.force();
        }
        if (!outputs.isEmpty()) {
            FileSync.syncDirectory(containers.directory());
        }
        for (Move m : moves) {
            index.relocate(m.fingerprint(), m.container(), m.offset());
        }
        int removed = index.removeAll(dead);
        for (Container c : victims) {
            containers.remove(c.id());
        }
        FileSync.syncDirectory(containers.directory());
        long outputBytes = 0;
        for (Container o : outputs) {
            outputBytes += o.size();
        }
        unit.saveIndexSnapshot();
        return new GcReport(chunksBefore, removed, victimBytes - outputBytes, victims.size());
    }

    private BitSet mark(ChunkIndex index) throws IOException {
        BitSet live = new BitSet(index.slotCount());
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
