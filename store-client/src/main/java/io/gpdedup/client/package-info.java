/**
 * The client library of gpdedup-store, for the dedup plugin, its agent, the harness and the admin
 * commands: {@link io.gpdedup.client.StoreClient} over one blocking socket, with a reader
 * thread pairing replies to request ids so that many requests can be in flight. No Netty: the
 * plugin starts a fresh JVM per call and every class loaded costs time.
 */
package io.gpdedup.client;
