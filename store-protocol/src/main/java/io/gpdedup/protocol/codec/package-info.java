/**
 * Chunk compression: how the plugin encodes a missing chunk before sending it, and how the store
 * and the plugin decode it again. One implementation for every side of the wire.
 */
package io.gpdedup.protocol.codec;
