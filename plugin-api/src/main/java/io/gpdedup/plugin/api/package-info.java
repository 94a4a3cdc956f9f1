/**
 * The gpbackup storage-plugin API 0.5.0 as both gpdedup plugins see it.
 *
 * <p>{@link io.gpdedup.plugin.api.CommandDispatcher} turns gpbackup's argv into one call on a
 * {@link io.gpdedup.plugin.api.StorageBackend}; everything gpbackup's quirks demand (quoted content
 * ids, {@code master} vs {@code coordinator}, strict config YAML, key naming from the last path
 * components, offsets files) is handled here once, so a backend only moves bytes.
 */
package io.gpdedup.plugin.api;
