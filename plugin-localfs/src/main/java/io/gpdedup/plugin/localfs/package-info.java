/**
 * {@code gpbackup_localfs_plugin}: stores each object as a plain file under the option
 * {@code directory}. It is the conformance baseline and the "plugin overhead is zero" reference
 * for the harness; writes are temp file, fsync, atomic rename, so no partial backup is ever visible.
 */
package io.gpdedup.plugin.localfs;
