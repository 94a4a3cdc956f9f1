/**
 * Seeded fuzz tests of the plugin's untrusted inputs: the offsets file parser and the plugin
 * config loader (and, from the agent package, the agent's frame reader). 10^4 inputs per target
 * by default; {@code -Dgpdedup.fuzz.iterations=N} for a long run (docs/reliability.md).
 */
package io.gpdedup.plugin.api.fuzz;
