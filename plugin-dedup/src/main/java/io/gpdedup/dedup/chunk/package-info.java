/**
 * Content-defined chunking: FastCDC with a gear hash and normalised chunking (level 2).
 *
 * <p>{@link io.gpdedup.dedup.chunk.Chunker} is the pure boundary function;
 * {@link io.gpdedup.dedup.chunk.ChunkStream} cuts an {@link java.io.InputStream} into chunks with
 * one fixed buffer. Boundaries are a stored format: the gear table and the cut rule must never
 * change for data already written (see docs/chunking.md and {@code ChunkerRegressionTest}).
 */
package io.gpdedup.dedup.chunk;
