/**
 * The store's Prometheus metrics and the HTTP endpoint that serves them.
 */
package io.gpdedup.store.metrics;
