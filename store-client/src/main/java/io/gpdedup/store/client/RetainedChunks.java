package io.gpdedup.store.client;

import io.gpdedup.store.chunk.Fingerprint;
import io.gpdedup.store.protocol.ChunkUpload;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The uploads a backup session put since its store last confirmed them in lasting storage (SYNC
 * with the uploaded flag), in the order they were stored: what it sends again to a store that
 * took the unit over without them. Not thread-safe: the session guards it.
 */
final class RetainedChunks {
    private final ArrayDeque<List<ChunkUpload>> batches = new ArrayDeque<>();
    private long bytes;

    void add(List<ChunkUpload> batch) {
        if (batch.isEmpty()) {
            return;
        }
        batches.addLast(batch);
        for (ChunkUpload u : batch) {
            bytes += u.payloadLength();
        }
    }

    /** Payload bytes retained. */
    long bytes() {
        return bytes;
    }

    /** Batches retained: a mark for {@link #dropFirst}. */
    int batches() {
        return batches.size();
    }

    /** Drops the {@code n} batches retained first: their chunks are in lasting storage now. */
    void dropFirst(int n) {
        for (int i = 0; i < n && !batches.isEmpty(); i++) {
            for (ChunkUpload u : batches.removeFirst()) {
                bytes -= u.payloadLength();
            }
        }
    }

    /** The retained uploads of {@code wanted}, which keeps only the fingerprints not retained. */
    List<ChunkUpload> take(Set<Fingerprint> wanted) {
        List<ChunkUpload> found = new ArrayList<>();
        for (List<ChunkUpload> batch : batches) {
            for (ChunkUpload u : batch) {
                if (wanted.remove(u.fingerprint())) {
                    found.add(u);
                }
            }
        }
        return found;
    }
}
