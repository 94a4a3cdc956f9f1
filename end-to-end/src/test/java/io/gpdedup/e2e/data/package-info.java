/**
 * Test data: seeded pseudo-random streams of any length generated on the fly, plugin_test.sh's
 * alphanumeric text, and SHA-256 sinks so large round trips are compared without holding them.
 */
package io.gpdedup.e2e.data;
