package io.gpdedup.store.client;

import io.gpdedup.store.chunk.StoredChunk;
import io.gpdedup.store.codec.ChunkCodec;
import io.gpdedup.store.protocol.ChunkEntry;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;

/**
 * The regions a client decoded last. A restore's batches do not end where the store's regions do,
 * and a backup's new chunks lie in regions of their own between older ones, so a region often
 * comes again in the next batch: recognised by its payload (compared byte for byte, far cheaper
 * than decoding it), it is decoded once.
 */
final class DecodedRegions {
    /** Regions kept, the last used first; each at most a region's raw size (1 MiB by default). */
    private static final int KEPT = 8;

    private record Decoded(ChunkEntry.Region region, byte[] raw) {
    }

    private final Deque<Decoded> recent = new ArrayDeque<>(KEPT);

    /** Puts the chunks of {@code entry} at their positions in {@code out}, its region decoded unless it was lately. */
    void placeIn(ChunkEntry entry, StoredChunk[] out) {
        if (!(entry instanceof ChunkEntry.Region r)) {
            entry.placeIn(out);
            return;
        }
        byte[] raw = lookUp(r);
        if (raw == null) {
            raw = ChunkCodec.decode(r.codec(), r.rawLength(), r.payload(), r.payload().length);
            keep(new Decoded(r, raw));
        }
        r.placeIn(out, raw);
    }

    private synchronized byte[] lookUp(ChunkEntry.Region r) {
        for (java.util.Iterator<Decoded> it = recent.iterator(); it.hasNext();) {
            Decoded d = it.next();
            ChunkEntry.Region k = d.region();
            if (k.codec() == r.codec() && k.rawLength() == r.rawLength() && Arrays.equals(k.payload(), r.payload())) {
                it.remove();
                recent.addFirst(d);
                return d.raw();
            }
        }
        return null;
    }

    private synchronized void keep(Decoded d) {
        if (recent.size() == KEPT) {
            recent.removeLast();
        }
        recent.addFirst(d);
    }
}
