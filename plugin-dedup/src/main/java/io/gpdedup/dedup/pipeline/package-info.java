/**
 * The data path of one stream. Backup: chunk, fingerprint, ask the store which chunks it lacks in
 * batches with several in flight, compress and upload only those, commit the recipe. Restore:
 * fetch chunk batches ahead, decode, check every chunk's SHA-256 before a byte of it is written.
 * Both bound their memory with a window of bytes in flight.
 */
package io.gpdedup.dedup.pipeline;
