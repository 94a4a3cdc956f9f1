package io.gpdedup.dedup.pipeline;

import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.store.codec.ChunkCodec;
import java.util.concurrent.Executor;

/**
 * How one stream is processed.
 *
 * @param batchBytes bytes of chunks per lookup/upload/fetch batch
 * @param window the bytes of chunks in flight, shared by the streams of a process: the memory bound
 *     of all pipelines together (plus one chunker buffer of 2 x max chunk size per stream)
 * @param workers the pool that fingerprints, compresses and decodes (shared by concurrent streams)
 */
public record PipelineSettings(ChunkerParams chunking, ChunkCodec codec, int batchBytes, ByteWindow window, Executor workers) {
    public static final int DEFAULT_BATCH_BYTES = 4 << 20;
    /** All streams of a process (a host agent serves many) together: 32 batches of 4 MiB. */
    public static final long DEFAULT_WINDOW_BYTES = 128L << 20;

    public PipelineSettings {
        if (batchBytes < chunking.maxSize()) {
            throw new IllegalArgumentException("a batch must hold at least one chunk of max size");
        }
    }

    public static PipelineSettings defaults(ChunkerParams chunking, ChunkCodec codec, ByteWindow window, Executor workers) {
        return new PipelineSettings(chunking, codec, DEFAULT_BATCH_BYTES, window, workers);
    }
}
