package io.gpdedup.dedup.pipeline;

import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.store.codec.ChunkCodec;
import java.util.concurrent.Executor;

/**
 * How one stream is processed.
 *
 * @param batchBytes bytes of chunks per lookup/upload/fetch batch
 * @param windowBytes bytes of chunks in flight per stream, the memory bound of the pipeline
 *     (plus one chunker buffer of 2 x max chunk size)
 * @param workers the pool that fingerprints, compresses and decodes (shared by concurrent streams)
 */
public record PipelineSettings(ChunkerParams chunking, ChunkCodec codec, int batchBytes, long windowBytes, Executor workers) {
    public static final int DEFAULT_BATCH_BYTES = 4 << 20;
    public static final long DEFAULT_WINDOW_BYTES = 64L << 20;

    public PipelineSettings {
        if (batchBytes < chunking.maxSize()) {
            throw new IllegalArgumentException("a batch must hold at least one chunk of max size");
        }
        if (windowBytes < batchBytes) {
            throw new IllegalArgumentException("the window must hold at least one batch");
        }
    }

    public static PipelineSettings defaults(ChunkerParams chunking, ChunkCodec codec, Executor workers) {
        return new PipelineSettings(chunking, codec, DEFAULT_BATCH_BYTES, DEFAULT_WINDOW_BYTES, workers);
    }
}
