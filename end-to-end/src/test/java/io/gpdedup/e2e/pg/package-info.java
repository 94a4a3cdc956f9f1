/**
 * A real PostgreSQL server (embedded binaries) backed up and restored through the built
 * {@code gpbackup_dedup_plugin} and a real {@code gpdedup-store} process, with the harness's
 * gpbackup-like engine ({@code io.gpdedup.bench.pg}): round trips in both modes, and what a repeat
 * backup sends after the database changed.
 */
package io.gpdedup.e2e.pg;
