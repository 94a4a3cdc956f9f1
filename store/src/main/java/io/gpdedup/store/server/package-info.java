/**
 * The gpdedup-store server: a Netty pipeline of one-job handlers (frame decoder, message decoder,
 * handshake, auth, store) in front of a {@link io.gpdedup.store.engine.StoreEngine}, whose calls
 * run on their own executor; its YAML config, password hashes, Prometheus metrics and the
 * {@code gpdedup-store} command line ({@link io.gpdedup.store.server.StoreMain}).
 */
package io.gpdedup.store.server;
