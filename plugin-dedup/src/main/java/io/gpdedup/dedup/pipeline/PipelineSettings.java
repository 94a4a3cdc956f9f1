package io.gpdedup.dedup.pipeline;

import io.gpdedup.dedup.chunk.ChunkStream;
import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.protocol.codec.ChunkCodec;
import java.util.concurrent.Executor;

/**
 * How one stream is processed.
 *
 * @param batchBytes bytes of chunks per lookup/upload/fetch batch taken from the shared area
 * @param budget the heap the streams of a process share (a host agent serves many): every batch and
 *     chunker buffer is reserved there before it is allocated
 * @param workers the pool that fingerprints, compresses and decodes (shared by concurrent streams)
 */
public record PipelineSettings(ChunkerParams chunking, ChunkCodec codec, int batchBytes, MemoryBudget budget, Executor workers) {
    static final int DEFAULT_BATCH_BYTES = 4 << 20;
    /** A stream's own batch: small, so that many streams fit, yet each always moves on. */
    static final int OWN_BATCH_BYTES = 1 << 20;
    /**
     * Heap a batch of chunk bytes may occupy at its peak: backup holds the chunks, their compressed
     * copies and the upload frame; restore the reply frame, the stored payloads and the decoded chunks.
     */
    static final int COPIES_PER_BATCH = 3;

    public PipelineSettings {
        if (batchBytes < chunking.maxSize()) {
            throw new IllegalArgumentException("a batch must hold at least one chunk of max size");
        }
    }

    public static PipelineSettings defaults(ChunkerParams chunking, ChunkCodec codec, MemoryBudget budget, Executor workers) {
        return new PipelineSettings(chunking, codec, DEFAULT_BATCH_BYTES, budget, workers);
    }

    /** Chunk bytes in a stream's own batch: at least one chunk of max size. */
    int ownBatchBytes() {
        return Math.max(Math.min(OWN_BATCH_BYTES, batchBytes), chunking.maxSize());
    }

    /** Heap for a batch that is filled up to {@code chunkBytes} (a backup batch overshoots by less than one chunk). */
    long batchCost(int chunkBytes) {
        return (long) COPIES_PER_BATCH * ((long) chunkBytes + chunking.maxSize());
    }

    /** Admits a backup stream: its chunker buffer and its own batch. */
    public MemoryBudget.Stream admitBackup() throws java.io.IOException {
        return budget.admit(ChunkStream.bufferSize(chunking), batchCost(ownBatchBytes()));
    }

    /** Admits a restore stream: its own batch. */
    public MemoryBudget.Stream admitRestore() throws java.io.IOException {
        return budget.admit(0, batchCost(ownBatchBytes()));
    }
}
