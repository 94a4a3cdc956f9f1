/**
 * JMH benchmarks of the chunker (test scope only, so JMH never reaches the plugin's runtime
 * classpath). Run: {@code scripts/jmh ChunkerBenchmark};
 * see docs/chunking.md.
 */
package io.gpdedup.dedup.chunk.bench;
