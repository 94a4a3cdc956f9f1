package io.gpdedup.bench.compare;

/**
 * One run of a tool's command, start of the process to its exit (and, for a restore, the last
 * byte of its output).
 *
 * @param wallNanos wall-clock time
 * @param cpuNanos user + system CPU of the process; -1 when unknown
 * @param outBytes bytes read from its stdout when it was hashed, else 0
 * @param outSha256 hex SHA-256 of its stdout when hashed, else null
 * @param log where its stdout/stderr went
 */
record Measured(long wallNanos, long cpuNanos, long outBytes, String outSha256, java.nio.file.Path log) {
}
