/**
 * JMH benchmarks of the chunker (test scope only, so JMH never reaches the plugin's runtime
 * classpath). Run: {@code mvn -o -pl plugin-dedup test-compile exec:exec@jmh -Djmh.args="ChunkerBenchmark"};
 * see docs/chunking.md.
 */
package io.gpdedup.dedup.chunk.bench;
