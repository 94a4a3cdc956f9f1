/**
 * TLS for the store protocol: the server's Netty {@code SslContext} and the gate that refuses
 * plain-text clients when TLS is required ({@link io.gpdedup.store.tls.ServerTls}), and the
 * client's JDK {@code SSLSocketFactory} trusting a given CA or certificate file
 * ({@link io.gpdedup.client.ClientTls}). PEM files only; no BouncyCastle.
 */
package io.gpdedup.store.tls;

import io.gpdedup.client.ClientTls;
