package io.gpdedup.dedup.pipeline;

import io.gpdedup.client.StoreClient;
import io.gpdedup.plugin.api.ByteRanges;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.protocol.codec.CorruptChunkException;
import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.RunStarts;
import io.gpdedup.protocol.model.StoredChunk;
import java.io.IOException;
import java.io.OutputStream;
import java.security.MessageDigest;
import java.util.AbstractList;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Writes a recipe's bytes to stdout, batch by batch in three stages: fetch (ahead, as far as the
 * memory budget allows), verify (decoded on the worker pool) and write. Each chunk's SHA-256 is
 * checked before any of its bytes is written, so a damaged chunk stops the restore with nothing
 * unverified written. A damaged recipe is caught by the chunk list SHA-256 the backup recorded,
 * before anything is written; a recipe from before that digest has its full restore checked against
 * the stream's SHA-256 at the end instead, and its subset restore reads and checks the whole stream
 * first. A subset restore otherwise fetches only the chunks under its ranges.
 */
public final class RestorePipeline {
    /** What an interrupted restore was waiting for, in its message. */
    private static final String WAITING = "restoring";

    private final PipelineSettings settings;
    private final StoreClient client;

    public RestorePipeline(PipelineSettings settings, StoreClient client) {
        this.settings = settings;
        this.client = client;
    }

    public void writeAll(Recipe recipe, OutputStream out, MemoryBudget.Stream stream) throws IOException {
        boolean listed = checkChunkList(recipe);
        List<Piece> pieces = whole(recipe);
        if (listed) {
            // Every chunk is checked against its fingerprint and the list of fingerprints against its
            // digest: together they prove the stream, so its bytes are not hashed a second time.
            write(pieces, out, null, stream);
            return;
        }
        MessageDigest streamHash = Fingerprint.newDigest();
        write(pieces, out, streamHash, stream);
        checkStreamHash(recipe, streamHash);
    }

    private static void checkStreamHash(Recipe recipe, MessageDigest streamHash) {
        if (!MessageDigest.isEqual(streamHash.digest(), recipe.streamSha256())) {
            throw new PluginException("restored stream does not match the SHA-256 recorded at backup: the recipe is damaged");
        }
    }

    /** Every chunk of {@code recipe}, whole. */
    private static List<Piece> whole(Recipe recipe) {
        List<ChunkRef> chunks = recipe.chunks();
        // A view, made piece by piece as the batches are fetched: a recipe of millions of chunks
        // stays the compact list it came as.
        return new AbstractList<>() {
            @Override
            public Piece get(int index) {
                ChunkRef c = chunks.get(index);
                return new Piece(c, 0, c.length());
            }

            @Override
            public int size() {
                return chunks.size();
            }
        };
    }

    /** False for a recipe without a chunk list digest; fails, before anything is written, on one that does not match. */
    private static boolean checkChunkList(Recipe recipe) {
        if (recipe.chunkListSha256() == null) {
            return false;
        }
        if (!recipe.chunkListMatches()) {
            throw new PluginException("the recipe's chunk list does not match the SHA-256 recorded at backup: the recipe is damaged, nothing restored");
        }
        return true;
    }

    public void writeRanges(Recipe recipe, ByteRanges ranges, OutputStream out, MemoryBudget.Stream stream) throws IOException {
        if (!checkChunkList(recipe)) {
            // A recipe from before the chunk list digest: only the whole stream's SHA-256 can prove its
            // list, so the whole stream is read and checked before a byte of the ranges is written.
            MessageDigest streamHash = Fingerprint.newDigest();
            write(whole(recipe), OutputStream.nullOutputStream(), streamHash, stream);
            checkStreamHash(recipe, streamHash);
        }
        List<ChunkRef> chunks = recipe.chunks();
        long[] starts = new long[chunks.size() + 1];
        for (int i = 0; i < chunks.size(); i++) {
            starts[i + 1] = starts[i] + chunks.get(i).length();
        }
        List<Piece> pieces = new ArrayList<>();
        for (int r = 0; r < ranges.count(); r++) {
            long s = ranges.start(r);
            long e = ranges.end(r);
            if (s == e) {
                continue;
            }
            int first = RunStarts.runAt(starts, s);
            int last = RunStarts.runAt(starts, e - 1);
            for (int i = first; i <= last; i++) {
                int from = (int) (Math.max(s, starts[i]) - starts[i]);
                int to = (int) (Math.min(e, starts[i + 1]) - starts[i]);
                pieces.add(new Piece(chunks.get(i), from, to));
            }
        }
        write(pieces, out, null, stream);
    }

    /** Part {@code [from, to)} of one chunk to write. */
    private record Piece(ChunkRef chunk, int from, int to) {
    }

    private void write(List<Piece> pieces, OutputStream out, MessageDigest streamHash, MemoryBudget.Stream stream) throws IOException {
        Deque<Fetch> inFlight = new ArrayDeque<>();
        long fullCost = settings.batchCost(settings.batchBytes());
        // The stream hash sees batches in order, chained on the workers as each is decoded, so the
        // thread that writes stdout does nothing else; it is checked once every byte was written.
        CompletableFuture<Void> hashed = CompletableFuture.completedFuture(null);
        int next = 0;
        try {
            while (next < pieces.size() || !inFlight.isEmpty()) {
                // Fetch ahead while memory is free; with nothing in flight, wait for it: the
                // stream's own batch is always given back by its own fetch, whoever else holds the rest.
                while (next < pieces.size()) {
                    MemoryBudget.Reservation reservation = stream.take(fullCost, inFlight.isEmpty());
                    if (reservation == null) {
                        break;
                    }
                    int capacity = reservation.own() ? settings.ownBatchBytes() : settings.batchBytes();
                    int end = next;
                    long bytes = 0;
                    while (end < pieces.size() && (end == next || bytes + pieces.get(end).chunk().length() <= capacity)) {
                        bytes += pieces.get(end).chunk().length();
                        end++;
                    }
                    Fetch fetched = fetch(pieces.subList(next, end), reservation);
                    if (streamHash != null) {
                        hashed = hash(fetched, streamHash, hashed);
                        inFlight.add(fetched.hashedBy(hashed));
                    } else {
                        inFlight.add(fetched);
                    }
                    next = end;
                }
                Fetch f = inFlight.poll();
                try {
                    writeBatch(f, out);
                } finally {
                    // A batch is counted until it is written and hashed, or has failed.
                    f.release();
                }
            }
            Futures.await(hashed, WAITING);
        } finally {
            // The budget is the process's, shared by every call it serves: a failed restore gives back all it took.
            for (Fetch f : inFlight) {
                f.chunks.cancel(false);
                f.release();
            }
        }
    }

    /** The write stage: the batch's pieces, once verified, to {@code out}, on the calling thread. */
    private static void writeBatch(Fetch f, OutputStream out) throws IOException {
        byte[][] raw = Futures.await(f.chunks, WAITING);
        for (int i = 0; i < raw.length; i++) {
            Piece p = f.pieces.get(i);
            out.write(raw[i], p.from(), p.to() - p.from());
        }
    }

    /** The stream hash stage, for a recipe without a chunk list digest: batches in order, each chained after the one before. */
    private CompletableFuture<Void> hash(Fetch fetched, MessageDigest streamHash, CompletableFuture<Void> previous) {
        return previous.thenCombineAsync(fetched.chunks, (v, raw) -> {
            for (int i = 0; i < raw.length; i++) {
                Piece p = fetched.pieces.get(i);
                streamHash.update(raw[i], p.from(), p.to() - p.from());
            }
            return null;
        }, settings.workers());
    }

    /** One batch on its way: {@code arriving} from the store, then {@code chunks} decoded and checked. */
    private record Fetch(List<Piece> pieces, CompletableFuture<?> arriving, CompletableFuture<byte[][]> chunks,
            MemoryBudget.Reservation reservation, CompletableFuture<Void> hashed) {
        Fetch hashedBy(CompletableFuture<Void> h) {
            return new Fetch(pieces, arriving, chunks, reservation, h);
        }

        void release() {
            // Given back once the batch has really ended: a cancelled fetch's reply may still be arriving.
            CompletableFuture.allOf(arriving, chunks, hashed).whenComplete((v, e) -> reservation.close());
        }
    }

    /** The fetch stage, then the verify stage on the workers as the batch arrives. */
    private Fetch fetch(List<Piece> pieces, MemoryBudget.Reservation reservation) {
        Fingerprint[] fps = new Fingerprint[pieces.size()];
        for (int i = 0; i < fps.length; i++) {
            fps[i] = pieces.get(i).chunk().fingerprint();
        }
        CompletableFuture<List<StoredChunk>> arriving = client.chunks(fps);
        CompletableFuture<byte[][]> decoded = arriving.thenApplyAsync(stored -> verify(pieces, stored), settings.workers());
        return new Fetch(pieces, arriving, decoded, reservation, CompletableFuture.completedFuture(null));
    }

    /** The verify stage: each chunk decoded and checked against its fingerprint. */
    private static byte[][] verify(List<Piece> pieces, List<StoredChunk> stored) {
        if (stored.size() != pieces.size()) {
            throw new PluginException("store returned " + stored.size() + " chunks for " + pieces.size() + " asked");
        }
        MessageDigest md = Fingerprint.newDigest();
        byte[][] raw = new byte[pieces.size()][];
        for (int i = 0; i < raw.length; i++) {
            ChunkRef ref = pieces.get(i).chunk();
            try {
                raw[i] = stored.get(i).rawBytes(ref, md);
            } catch (CorruptChunkException e) {
                throw new PluginException("chunk " + ref.fingerprint() + " is damaged in the store (" + e.getMessage() + "): restore stopped");
            }
        }
        return raw;
    }
}
