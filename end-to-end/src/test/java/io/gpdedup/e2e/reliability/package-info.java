/**
 * Reliability and security runs against the real executables of dist/ (docs/reliability.md):
 * kill -9 of the store, the plugin launcher and the host agent during concurrent backups
 * ({@code CrashRunTest}; the reduced run is a test, scripts/reliability crash runs the full one
 * through the same class); secrets kept out of every log ({@code SecretsNeverLoggedTest}); TLS
 * between the plugin and the store ({@code TlsExecutablesTest}); the store's memory with 200
 * connections open and its idle timeout ({@code ConnectionsMemoryTest}).
 */
package io.gpdedup.e2e.reliability;
