/**
 * Running plugin executables exactly as gpbackup runs them: through {@code bash -c} with an
 * unquoted command string, a minimal environment, stdin/stdout as data pipes, possibly many at
 * once. {@link io.gpdedup.e2e.shell.CallResult} holds gpbackup's notion of success and failure.
 */
package io.gpdedup.e2e.shell;
