package io.gpdedup.store.engine;

import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.codec.CorruptChunkException;
import io.gpdedup.protocol.model.Fingerprint;
import java.security.MessageDigest;

/**
 * Checks a chunk payload against its fingerprint: the store's defence against a client that
 * sends bytes other than the ones it names. Decoding itself is {@link ChunkCodec#decode}, shared
 * with the client.
 */
final class ChunkDecoder {
    private ChunkDecoder() {
    }

    /** Decodes and checks length and SHA-256; throws StoreException naming the fingerprint on any mismatch. */
    static byte[] decodeAndCheck(Fingerprint fingerprint, Codec codec, int rawLength, byte[] payload) {
        byte[] raw;
        try {
            raw = ChunkCodec.decode(codec, rawLength, payload, payload.length);
        } catch (CorruptChunkException e) {
            throw new StoreException(e.getMessage());
        }
        MessageDigest md = Fingerprint.newDigest();
        md.update(raw);
        if (!MessageDigest.isEqual(md.digest(), fingerprint.toBytes())) {
            throw new StoreException("chunk " + fingerprint + " does not match its fingerprint (SHA-256 of its "
                    + rawLength + " decoded bytes differs)");
        }
        return raw;
    }
}
