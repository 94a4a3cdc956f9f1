package io.gpdedup.bench.runner;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.wire.ChunkUpload;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;

/**
 * One connchk stream: unique random data written straight to the store with the client library,
 * fixed-size chunks, no compression (the data does not compress), no dedup lookups (a channel
 * test sends, as ddpconnchk does, and the appliance profile charges such a stream the wire only),
 * a few batches in flight so the store, not the round trip, sets the pace. And the way back:
 * reading an object's chunks.
 */
final class SyntheticStream {
    static final int CHUNK_BYTES = 64 * 1024;
    static final int BATCH_CHUNKS = 16;
    static final int BATCHES_IN_FLIGHT = 4;

    private SyntheticStream() {
    }

    /**
     * Writes {@code bytes} of {@code data} as object {@code name} in {@code session}, telling
     * {@code progress} each batch's bytes once stored, and commits (returns once durable).
     */
    public static void write(BackupSession session, String name, UniqueData data, long bytes, LongConsumer progress) {
        MessageDigest stream = Fingerprint.newDigest();
        MessageDigest chunkHash = Fingerprint.newDigest();
        List<ChunkRef> refs = new ArrayList<>();
        Deque<CompletableFuture<Void>> inFlight = new ArrayDeque<>();
        long left = bytes;
        while (left > 0) {
            List<byte[]> chunks = new ArrayList<>();
            long batchBytes = 0;
            while (left > 0 && chunks.size() < BATCH_CHUNKS) {
                byte[] c = new byte[(int) Math.min(CHUNK_BYTES, left)];
                data.fill(c, 0, c.length);
                stream.update(c);
                chunks.add(c);
                left -= c.length;
                batchBytes += c.length;
            }
            Fingerprint[] fps = new Fingerprint[chunks.size()];
            for (int i = 0; i < fps.length; i++) {
                fps[i] = Fingerprint.of(chunkHash.digest(chunks.get(i)));
                refs.add(new ChunkRef(fps[i], chunks.get(i).length));
            }
            long counted = batchBytes;
            List<ChunkUpload> up = new ArrayList<>();
            for (int i = 0; i < fps.length; i++) {
                up.add(new ChunkUpload(fps[i], Codec.NONE, chunks.get(i).length, chunks.get(i)));
            }
            inFlight.add(session.put(up).thenRun(() -> progress.accept(counted)));
            while (inFlight.size() >= BATCHES_IN_FLIGHT) {
                await(inFlight.poll());
            }
        }
        // The commit follows the last puts on the wire: the store runs a lease's requests in order.
        CompletableFuture<Void> committed = session.commit(name, new Recipe(refs, bytes, stream.digest()));
        while (!inFlight.isEmpty()) {
            await(inFlight.poll());
        }
        await(committed);
    }

    /** Reads object {@code name} chunk batch by chunk batch, a few batches ahead; returns its length. */
    public static long read(StoreClient client, String name, LongConsumer progress) {
        Recipe r = client.recipe(name).orElseThrow(() -> new IllegalStateException("no object " + name));
        Deque<CompletableFuture<List<StoredChunk>>> inFlight = new ArrayDeque<>();
        List<ChunkRef> refs = r.chunks();
        long total = 0;
        for (int from = 0; from < refs.size(); from += BATCH_CHUNKS) {
            Fingerprint[] fps = refs.subList(from, Math.min(refs.size(), from + BATCH_CHUNKS)).stream()
                    .map(ChunkRef::fingerprint).toArray(Fingerprint[]::new);
            inFlight.add(client.chunks(fps));
            while (inFlight.size() >= BATCHES_IN_FLIGHT) {
                total += consume(inFlight.poll(), progress);
            }
        }
        while (!inFlight.isEmpty()) {
            total += consume(inFlight.poll(), progress);
        }
        if (total != r.totalLength()) {
            throw new IllegalStateException(name + ": read " + total + " bytes of " + r.totalLength());
        }
        return total;
    }

    private static long consume(CompletableFuture<List<StoredChunk>> f, LongConsumer progress) {
        long n = 0;
        for (StoredChunk c : await(f)) {
            n += c.rawLength();
        }
        progress.accept(n);
        return n;
    }

    /** Waits for a reply; a store failure surfaces as the client's own exception. */
    static <T> T await(CompletableFuture<T> f) {
        try {
            return f.join();
        } catch (java.util.concurrent.CompletionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw e;
        }
    }
}
