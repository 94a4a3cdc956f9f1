package io.gpdedup.protocol.model;

import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.codec.CorruptChunkException;
import java.security.MessageDigest;

/** A chunk as kept in a container: the payload exactly as the client sent it, and how to decode it. */
public record StoredChunk(Codec codec, int rawLength, byte[] payload) {
    /**
     * The chunk's bytes, proven to be the ones {@code ref} names: its length is the recipe's, its
     * payload decodes to that length, and the decoded bytes hash to its fingerprint. Throws
     * {@link CorruptChunkException} saying which check failed. {@code sha256} is a SHA-256 digest
     * the caller reuses from chunk to chunk; it is left reset.
     */
    public byte[] rawBytes(ChunkRef ref, MessageDigest sha256) {
        if (rawLength != ref.length()) {
            throw new CorruptChunkException("it has " + rawLength + " bytes in the store, the recipe says " + ref.length());
        }
        byte[] bytes = ChunkCodec.decode(codec, rawLength, payload);
        sha256.reset();
        sha256.update(bytes);
        if (!MessageDigest.isEqual(sha256.digest(), ref.fingerprint().toBytes())) {
            throw new CorruptChunkException("its SHA-256 does not match");
        }
        return bytes;
    }
}
