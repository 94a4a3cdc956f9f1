/**
 * {@code gpbackup_dedup_plugin}: the plugin definition and options, the backend that maps plugin
 * commands onto a gpdedup-store storage unit, and the pool of store connections a host agent keeps
 * warm between calls. The data path itself is in {@code pipeline}, the chunker in {@code chunk}.
 */
package io.gpdedup.dedup;
