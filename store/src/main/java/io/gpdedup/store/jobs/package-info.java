/**
 * Work the store does by itself in the background: collecting garbage on a schedule or when a
 * unit has enough to reclaim, and recompressing containers when the store is idle.
 */
package io.gpdedup.store.jobs;
