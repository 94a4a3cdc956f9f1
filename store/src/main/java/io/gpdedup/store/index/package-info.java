/**
 * The fingerprint index: fingerprint to (container, offset, record length), held in memory in an
 * open-addressing table of primitive arrays fronted by a Bloom filter, plus its optional on-disk
 * snapshot (docs/format.md, section 4) that spares a full container scan at start-up.
 */
package io.gpdedup.store.index;
