/**
 * The network side of gpdedup-store: a Netty pipeline of one-job handlers (frame decoder, message
 * decoder, handshake, auth, store) in front of a {@link io.gpdedup.store.engine.StoreEngine}, the
 * limits on what connections may make the server hold, and the running service that ties the
 * engine, the protocol server and the metrics endpoint together.
 */
package io.gpdedup.store.net;
