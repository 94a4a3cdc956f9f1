/**
 * Reliability runs against the real executables of dist/: kill -9 of the store, the plugin
 * launcher and the host agent during concurrent backups (docs/reliability.md). The reduced run is
 * a test; scripts/reliability crash runs the full one through the same class.
 */
package io.gpdedup.e2e.reliability;
