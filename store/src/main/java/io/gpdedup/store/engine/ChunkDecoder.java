package io.gpdedup.store.engine;

import com.github.luben.zstd.Zstd;
import io.gpdedup.store.Fingerprint;
import java.security.MessageDigest;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Decodes chunk payloads and checks them against their fingerprint: the store's defence against
 * a client that sends bytes other than the ones it names.
 */
final class ChunkDecoder {
    private static final LZ4SafeDecompressor LZ4 = LZ4Factory.fastestInstance().safeDecompressor();

    private ChunkDecoder() {
    }

    /** The raw chunk; throws StoreException if the payload does not decode to exactly {@code rawLength} bytes. */
    static byte[] decode(Codec codec, int rawLength, byte[] payload) {
        switch (codec) {
            case NONE:
                if (payload.length != rawLength) {
                    throw new StoreException("uncompressed chunk has " + payload.length + " bytes, not " + rawLength);
                }
                return payload;
            case LZ4: {
                byte[] out = new byte[rawLength];
                int n;
                try {
                    n = LZ4.decompress(payload, 0, payload.length, out, 0, rawLength);
                } catch (LZ4Exception e) {
                    throw new StoreException("LZ4 chunk does not decode to " + rawLength + " bytes: " + e.getMessage());
                }
                if (n != rawLength) {
                    throw new StoreException("LZ4 chunk decodes to " + n + " bytes, not " + rawLength);
                }
                return out;
            }
            case ZSTD: {
                byte[] out = new byte[rawLength];
                long n;
                try {
                    n = Zstd.decompressByteArray(out, 0, rawLength, payload, 0, payload.length);
                } catch (RuntimeException e) {
                    throw new StoreException("zstd chunk does not decode to " + rawLength + " bytes: " + e.getMessage());
                }
                if (Zstd.isError(n)) {
                    throw new StoreException("zstd chunk does not decode: " + Zstd.getErrorName(n));
                }
                if (n != rawLength) {
                    throw new StoreException("zstd chunk decodes to " + n + " bytes, not " + rawLength);
                }
                return out;
            }
            default:
                throw new StoreException("unknown codec " + codec);
        }
    }

    /** Decodes and checks the SHA-256; throws StoreException naming the fingerprint on any mismatch. */
    static byte[] decodeAndCheck(Fingerprint fingerprint, Codec codec, int rawLength, byte[] payload) {
        byte[] raw = decode(codec, rawLength, payload);
        MessageDigest md = Fingerprint.newDigest();
        md.update(raw);
        if (!MessageDigest.isEqual(md.digest(), fingerprint.toBytes())) {
            throw new StoreException("chunk " + fingerprint + " does not match its fingerprint (SHA-256 of its "
                    + rawLength + " decoded bytes differs)");
        }
        return raw;
    }
}
