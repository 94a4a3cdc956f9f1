package io.gpdedup.client;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.wire.ChunkUpload;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The uploads a backup session put since its store last confirmed them in lasting storage (SYNC
 * with the uploaded flag), in the order they were stored: what it sends again to a store that
 * took the unit over without them. Each batch's bytes are taken from the caller's {@link
 * BackupSession.Room} when it has them, and given back when the batch is let go. Not thread-safe:
 * the session guards it.
 */
final class RetainedChunks {
    /** A batch, and whether its bytes were taken from the room. */
    private record Held(List<ChunkUpload> uploads, long bytes, boolean counted) {
    }

    private final ArrayDeque<Held> batches = new ArrayDeque<>();
    private BackupSession.Room room = BackupSession.Room.UNCOUNTED;
    private long bytes;
    private long added;
    private long dropped;

    void countIn(BackupSession.Room r) {
        room = r;
    }

    /**
     * Retains {@code batch}; false when the room had no space for it: it is retained all the same
     * (its caller still holds its bytes), and must be covered by an uploaded SYNC before the caller
     * lets it go.
     */
    boolean add(List<ChunkUpload> batch) {
        if (batch.isEmpty()) {
            return true;
        }
        long n = 0;
        for (ChunkUpload u : batch) {
            n += u.payloadLength();
        }
        boolean counted = room.take(n);
        batches.addLast(new Held(batch, n, counted));
        bytes += n;
        added++;
        return counted;
    }

    /** Payload bytes retained. */
    long bytes() {
        return bytes;
    }

    /** Batches retained so far, counting those let go: a mark for {@link #dropThrough}. */
    long mark() {
        return added;
    }

    /** Lets go of the batches retained before {@code mark}: their chunks are in lasting storage now. */
    void dropThrough(long mark) {
        while (dropped < mark && !batches.isEmpty()) {
            Held h = batches.removeFirst();
            dropped++;
            bytes -= h.bytes();
            if (h.counted()) {
                room.giveBack(h.bytes());
            }
        }
    }

    /** The retained uploads of {@code wanted}, which keeps only the fingerprints not retained. */
    List<ChunkUpload> take(Set<Fingerprint> wanted) {
        List<ChunkUpload> found = new ArrayList<>();
        for (Held h : batches) {
            for (ChunkUpload u : h.uploads()) {
                if (wanted.remove(u.fingerprint())) {
                    found.add(u);
                }
            }
        }
        return found;
    }
}
