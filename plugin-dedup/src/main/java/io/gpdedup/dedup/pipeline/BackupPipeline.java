package io.gpdedup.dedup.pipeline;

import io.gpdedup.client.BackupSession;
import io.gpdedup.dedup.chunk.ChunkStream;
import io.gpdedup.dedup.chunk.Chunker;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.codec.EncodedChunk;
import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.ChunkList;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.wire.ChunkUpload;
import java.io.IOException;
import java.io.InputStream;
import java.security.DigestException;
import java.security.MessageDigest;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Turns one stdin stream into a recipe whose chunks the store holds. The calling thread only cuts
 * chunks into batches; the stages of a batch run behind it on the worker pool and the connection:
 * fingerprint, then store ({@link BackupSession#store}: ask which chunks are missing, compress
 * those, upload them), with the memory of every batch reserved in {@link PipelineSettings#budget()}
 * before it is filled. Duplicates cost a fingerprint and a lookup, never compression or transfer.
 * A batch keeps its chunks, and its memory, until the store has them on disk: what a restarted
 * store lost is sent again from there.
 *
 * <p>The recipe is proven by its chunk list SHA-256 and the chunks' fingerprints, so the stream is
 * hashed once, chunk by chunk. Only a store before protocol version 5, which needs the stream's
 * SHA-256 as well, costs a second pass (chained batch after batch on the workers, so in order).
 */
public final class BackupPipeline {
    /** What an interrupted backup was waiting for, in its message. */
    private static final String WAITING = "backing up";

    private final PipelineSettings settings;
    private final Chunker chunker;
    private final long maxChunks;

    public BackupPipeline(PipelineSettings settings) {
        this(settings, Recipe.MAX_CHUNKS);
    }

    BackupPipeline(PipelineSettings settings, long maxChunks) {
        this.settings = settings;
        this.chunker = new Chunker(settings.chunking());
        this.maxChunks = maxChunks;
    }

    /** What a finished stream amounts to, for logs and benchmarks. */
    public record Result(Recipe recipe, long chunks, long newChunks, long newBytes, long sentBytes) {
    }

    /**
     * Reads {@code in} to EOF and returns its recipe; nothing is committed here. Each batch's memory
     * is taken from {@code stream} before its first chunk is copied.
     */
    public Result store(InputStream in, BackupSession session, MemoryBudget.Stream stream) throws IOException {
        MessageDigest streamHash = session.needsStreamSha256() ? Fingerprint.newDigest() : null;
        ArrayDeque<CompletableFuture<Batch>> batches = new ArrayDeque<>();
        StoredChunks storedChunks = new StoredChunks();
        CompletableFuture<Void> hashed = CompletableFuture.completedFuture(null);
        long total = 0;
        long count = 0;
        long fullCost = settings.batchCost(settings.batchBytes());
        Batch batch = null;
        try (ChunkStream chunks = chunker.stream(in)) {
            batch = new Batch(stream.take(fullCost, true), settings);
            while (chunks.next()) {
                if (++count > maxChunks) {
                    throw tooManyChunks(total);
                }
                batch.add(chunks.copyChunk());
                total += chunks.length();
                if (batch.bytes >= batch.capacity) {
                    hashed = submit(batch, session, streamHash, hashed, batches);
                    batch = null;
                    failFast(batches);
                    storedChunks.takeDone(batches);
                    // Waits only for this stream's own batch, which the store alone completes.
                    batch = new Batch(stream.take(fullCost, true), settings);
                }
                failFast(batches);
            }
            if (!batch.chunks.isEmpty()) {
                hashed = submit(batch, session, streamHash, hashed, batches);
                batch = null;
            }
            Futures.await(hashed, WAITING);
            while (!batches.isEmpty()) {
                storedChunks.take(Futures.await(batches.removeFirst(), WAITING));
            }
            ChunkList chunkList = storedChunks.refs.build();
            Recipe recipe = streamHash == null ? Recipe.ofChunks(chunkList, total)
                    : new Recipe(chunkList, total, streamHash.digest()).withChunkListSha256();
            return new Result(recipe, chunkList.size(), storedChunks.newChunks, storedChunks.newBytes, storedChunks.sentBytes);
        } finally {
            if (batch != null) {
                batch.reservation.close();
            }
            batches.forEach(f -> f.cancel(false));
        }
    }

    private CompletableFuture<Void> submit(Batch batch, BackupSession session, MessageDigest streamHash,
            CompletableFuture<Void> previousHash, ArrayDeque<CompletableFuture<Batch>> batches) {
        CompletableFuture<Batch> stored = fingerprint(batch).thenCompose(b -> store(b, session));
        CompletableFuture<Void> hashed = streamHash == null ? previousHash : hash(batch, streamHash, previousHash);
        // Only fingerprints and lengths outlive a batch: its bytes go once stored and hashed.
        CompletableFuture<Batch> done = stored.thenCombine(hashed, (b, v) -> b.release());
        // The memory is given back when both stages have really ended, not when a failed stream cancels them.
        CompletableFuture.allOf(stored, hashed).whenComplete((v, e) -> {
            batch.release();
            batch.reservation.close();
        });
        batches.add(done);
        return hashed;
    }

    /** The fingerprint stage: the SHA-256 of each of the batch's chunks, on the workers. */
    private CompletableFuture<Batch> fingerprint(Batch batch) {
        return CompletableFuture.supplyAsync(batch::fingerprint, settings.workers());
    }

    /**
     * The store stage: the session asks which of the batch's chunks the store lacks, has them
     * compressed and uploads them. Stored means on the store's disk: until then the batch keeps its
     * chunks (and its memory), for the session to send again what a restarted store lost.
     */
    private CompletableFuture<Batch> store(Batch batch, BackupSession session) {
        return session.store(batch.fingerprints, new Compress(batch, settings)).thenApply(v -> batch);
    }

    /** The stream hash stage, for a store that needs it: it must see batches in order, so each update is chained after the previous one. */
    private CompletableFuture<Void> hash(Batch batch, MessageDigest streamHash, CompletableFuture<Void> previousHash) {
        return previousHash.thenRunAsync(() -> {
            for (byte[] c : batch.chunks) {
                streamHash.update(c);
            }
        }, settings.workers());
    }

    /** Said at the chunk past the limit, not after the whole stream went to the store for nothing. */
    private IOException tooManyChunks(long bytesSoFar) {
        String reached = bytesSoFar >= 1L << 30 ? (bytesSoFar >> 30) + " GiB" : (bytesSoFar >> 20) + " MiB";
        int avg = settings.chunking().avgSize();
        return new IOException("this stream has more than " + maxChunks + " chunks, the most one backup object may have (reached after "
                + reached + " at an average chunk of " + (avg >= 1024 ? (avg >> 10) + " KiB" : avg + " bytes") + "): back up without"
                + " --single-data-file (one object per table and segment), or to another storage unit with a larger chunk_avg_size");
    }

    private static void failFast(ArrayDeque<CompletableFuture<Batch>> batches) throws IOException {
        // Stop reading stdin as soon as the store has refused something.
        if (!batches.isEmpty()) {
            CompletableFuture<Batch> last = batches.peekLast();
            if (last.isCompletedExceptionally()) {
                Futures.await(last, WAITING);
            }
        }
    }

    /**
     * What stored batches leave for the recipe and the figures, taken from them in stream order as
     * soon as they are stored: a stream of millions of chunks keeps 36 bytes of each, not its batch.
     */
    private static final class StoredChunks {
        final ChunkList.Builder refs = new ChunkList.Builder();
        long newChunks;
        long newBytes;
        long sentBytes;

        /** Takes the stored batches at the head of the line; the first that failed throws here. */
        void takeDone(ArrayDeque<CompletableFuture<Batch>> batches) throws IOException {
            while (!batches.isEmpty() && batches.peekFirst().isDone()) {
                take(Futures.await(batches.removeFirst(), WAITING));
            }
        }

        void take(Batch b) {
            b.appendTo(refs);
            newChunks += b.newChunks;
            newBytes += b.newBytes;
            sentBytes += b.sentBytes;
        }
    }

    /** The compress stage: the uploads of the batch's chunks the store lacks, made on the workers. */
    private record Compress(Batch batch, PipelineSettings settings) implements BackupSession.Uploads {
        @Override
        public CompletableFuture<List<ChunkUpload>> forMissing(boolean[] missing) {
            return CompletableFuture.supplyAsync(() -> batch.markMissing(missing).encodeMissing(settings).uploads, settings.workers());
        }
    }

    /** Chunks that travel together through lookup and upload. */
    private static final class Batch {
        final MemoryBudget.Reservation reservation;
        final int capacity;
        final List<byte[]> chunks = new ArrayList<>();
        int[] lengths = new int[16];
        long bytes;
        /** The chunks' SHA-256s, 32 bytes each back to back: what the session and the recipe keep of them. */
        byte[] fingerprints;
        boolean[] missing;
        List<ChunkUpload> uploads = List.of();
        long newChunks;
        long newBytes;
        long sentBytes;

        Batch(MemoryBudget.Reservation reservation, PipelineSettings settings) {
            this.reservation = reservation;
            this.capacity = reservation.own() ? settings.ownBatchBytes() : settings.batchBytes();
        }

        void add(byte[] chunk) {
            if (chunks.size() == lengths.length) {
                lengths = java.util.Arrays.copyOf(lengths, 2 * lengths.length);
            }
            lengths[chunks.size()] = chunk.length;
            chunks.add(chunk);
            bytes += chunk.length;
        }

        Batch fingerprint() {
            MessageDigest md = Fingerprint.newDigest();
            fingerprints = new byte[chunks.size() * Fingerprint.LENGTH];
            for (int i = 0; i < chunks.size(); i++) {
                md.update(chunks.get(i));
                try {
                    md.digest(fingerprints, i * Fingerprint.LENGTH, Fingerprint.LENGTH);
                } catch (DigestException e) {
                    throw new IllegalStateException("SHA-256 into a 32-byte slot", e);
                }
            }
            return this;
        }

        /**
         * Hands this stored batch's entries to the end of {@code recipe}: its fingerprints, which the
         * session keeps too, become a page of the recipe, not a copy.
         */
        void appendTo(ChunkList.Builder recipe) {
            int n = fingerprints.length / Fingerprint.LENGTH;
            recipe.adopt(fingerprints, java.util.Arrays.copyOf(lengths, n), n);
            fingerprints = null;
            lengths = null;
        }

        Batch markMissing(boolean[] m) {
            missing = m;
            return this;
        }

        /** The uploads of the missing chunks; called again for each new lease of the session. */
        Batch encodeMissing(PipelineSettings settings) {
            newChunks = 0;
            newBytes = 0;
            sentBytes = 0;
            List<ChunkUpload> up = new ArrayList<>();
            for (int i = 0; i < missing.length; i++) {
                if (missing[i]) {
                    byte[] raw = chunks.get(i);
                    Fingerprint fp = Fingerprint.of(fingerprints, i * Fingerprint.LENGTH);
                    EncodedChunk e = settings.codec().compress(raw, 0, raw.length);
                    // A chunk that stays raw is sent as the batch holds it, which outlives the upload.
                    up.add(e != null ? new ChunkUpload(fp, e.codec(), raw.length, e.exactPayload()) : new ChunkUpload(fp, Codec.NONE, raw.length, raw));
                    newChunks++;
                    newBytes += raw.length;
                    sentBytes += e != null ? e.length() : raw.length;
                }
            }
            uploads = up;
            return this;
        }

        synchronized Batch release() {
            uploads = List.of();
            chunks.clear();
            return this;
        }
    }
}
