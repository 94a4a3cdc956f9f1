/**
 * The gpdedup-store wire protocol (docs/protocol.md): frames, messages and the one codec that
 * reads and writes them for both the client and the server. Plain java.nio, no Netty, so the
 * client can load it cheaply in a short-lived JVM.
 */
package io.gpdedup.protocol.wire;
