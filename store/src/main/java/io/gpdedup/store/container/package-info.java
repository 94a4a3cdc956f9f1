/**
 * Chunk containers: append-only files of self-describing, checksummed chunk records (see
 * docs/format.md, section 2), the scan that rebuilds an index from them after a crash, and the
 * fsync helpers every durable write in the store goes through.
 */
package io.gpdedup.store.container;
