/**
 * The store's YAML config: strict loading, one record per section, the demo config written on
 * first start and where the embedded default store lives.
 */
package io.gpdedup.store.config;
