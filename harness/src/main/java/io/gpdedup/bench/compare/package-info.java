/**
 * {@code gpdedup-bench compare}: the same generated COPY-text streams backed up, changed and
 * restored with gpdedup, restic and borg, each tool started as a user would start it, with the
 * throughput, repository growth and bytes on the wire printed next to the targets.
 */
package io.gpdedup.bench.compare;
