/**
 * Reliability and security tests of the store through its real server: TLS, capacity limits,
 * idle timeouts, memory with many connections, and seeded fuzzing of the frame codec and of the
 * server's decoders (docs/reliability.md).
 */
package io.gpdedup.store.reliability;
