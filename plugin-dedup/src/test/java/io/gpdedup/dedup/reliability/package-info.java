/**
 * Reliability and security tests of the dedup plugin against a real store: TLS through the
 * plugin options, full-path corruption (docs/reliability.md).
 */
package io.gpdedup.dedup.reliability;
