package io.gpdedup.store.crypt;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.CorruptRecordException;
import io.gpdedup.store.container.RecordFormat;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import javax.crypto.SecretKey;

/**
 * Chunk records sealed with AES-256-GCM under a unit's data key (docs/format.md section 9.2):
 * magic {@code CHKE}, data key id, nonce and sealed length in the clear, then the fingerprint,
 * codec, raw length and payload encrypted, then the tag. The clear header and the unit's name
 * are the associated data.
 *
 * <p>The location of a record (container, offset) is deliberately not bound: garbage collection
 * copies sealed records to other containers as they are, without decrypting them. A record moved
 * or swapped by someone else is still caught: every read checks that the fingerprint inside the
 * authenticated ciphertext is the one the index asked for, and the index itself is sealed.
 */
public final class SealedRecords implements RecordFormat {
    public static final int MAGIC = 0x43484B45; // "CHKE"
    /** Magic, data key id, nonce, sealed length. */
    public static final int HEADER_BYTES = 4 + 4 + Gcm.NONCE_BYTES + 4;
    /** Fingerprint, codec, raw length: encrypted with the payload. */
    private static final int INNER_BYTES = Fingerprint.LENGTH + 1 + 4;
    public static final int OVERHEAD = HEADER_BYTES + INNER_BYTES + Gcm.TAG_BYTES;

    private final DataKeys keys;
    private final byte[] unit;

    SealedRecords(DataKeys keys) {
        this.keys = keys;
        this.unit = ("chunk\0" + keys.unit()).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public int overhead() {
        return OVERHEAD;
    }

    @Override
    public int headerBytes() {
        return HEADER_BYTES;
    }

    @Override
    public int magic() {
        return MAGIC;
    }

    @Override
    public int lengthFromHeader(byte[] header) {
        ByteBuffer b = ByteBuffer.wrap(header);
        if (header.length < HEADER_BYTES || b.getInt(0) != MAGIC) {
            return -1;
        }
        int sealed = b.getInt(HEADER_BYTES - 4);
        return sealed < INNER_BYTES + Gcm.TAG_BYTES || sealed > Integer.MAX_VALUE - HEADER_BYTES ? -1 : HEADER_BYTES + sealed;
    }

    @Override
    public void write(ByteBuffer out, Fingerprint fingerprint, int codecId, int rawLength, ByteBuffer payload) {
        int keyId = keys.currentId();
        byte[] nonce = Gcm.randomBytes(Gcm.NONCE_BYTES);
        int plainLength = INNER_BYTES + payload.remaining();
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
        header.putInt(MAGIC).putInt(keyId).put(nonce).putInt(plainLength + Gcm.TAG_BYTES);
        // The JDK's AES-GCM runs several times faster on arrays than on direct buffers: the
        // record is assembled and sealed in this thread's arrays, then copied out.
        byte[] plain = Scratch.PLAIN.get().array(plainLength);
        fingerprint.copyTo(plain, 0);
        plain[Fingerprint.LENGTH] = (byte) codecId;
        ByteBuffer.wrap(plain, Fingerprint.LENGTH + 1, 4).putInt(rawLength);
        payload.duplicate().get(plain, INNER_BYTES, payload.remaining());
        byte[] sealed = Scratch.SEALED.get().array(plainLength + Gcm.TAG_BYTES);
        int n = Gcm.sealInto(keys.key(keyId), nonce, aad(header.array()), plain, plainLength, sealed);
        out.put(header.array()).put(sealed, 0, n);
    }

    @Override
    public ChunkRecord decode(ByteBuffer record) {
        ByteBuffer b = record.slice();
        int length = b.remaining();
        if (length < OVERHEAD) {
            throw new CorruptRecordException("record of " + length + " bytes is shorter than a sealed record");
        }
        if (b.getInt(0) != MAGIC) {
            throw new CorruptRecordException("not a sealed record (the unit is encrypted)");
        }
        int sealedLength = b.getInt(HEADER_BYTES - 4);
        if (sealedLength != length - HEADER_BYTES) {
            throw new CorruptRecordException("sealed length " + sealedLength + " does not match the record size " + length);
        }
        SecretKey key = keys.key(b.getInt(4));
        if (key == null) {
            throw new CorruptRecordException("record sealed under data key " + b.getInt(4) + ", which the unit does not have");
        }
        byte[] sealed = Scratch.SEALED.get().array(length);
        b.get(0, sealed, 0, length);
        byte[] header = Arrays.copyOf(sealed, HEADER_BYTES);
        byte[] nonce = Arrays.copyOfRange(header, 8, 8 + Gcm.NONCE_BYTES);
        byte[] plain = Scratch.PLAIN.get().array(sealedLength - Gcm.TAG_BYTES);
        if (!Gcm.openInto(key, nonce, aad(header), sealed, HEADER_BYTES, sealedLength, plain)) {
            throw new CorruptRecordException("sealed record does not authenticate (damaged or tampered with)");
        }
        ByteBuffer p = ByteBuffer.wrap(plain);
        return new ChunkRecord(Fingerprint.of(plain, 0), p.get(Fingerprint.LENGTH) & 0xff, p.getInt(Fingerprint.LENGTH + 1),
                Arrays.copyOfRange(plain, INNER_BYTES, sealedLength - Gcm.TAG_BYTES));
    }

    /** Arrays kept per thread, grown to the largest record seen: a record of up to a few MiB each. */
    private static final class Scratch {
        static final ThreadLocal<Scratch> PLAIN = ThreadLocal.withInitial(Scratch::new);
        static final ThreadLocal<Scratch> SEALED = ThreadLocal.withInitial(Scratch::new);
        private byte[] bytes = new byte[0];

        byte[] array(int length) {
            if (bytes.length < length) {
                bytes = new byte[Math.max(length, Math.min(2 * bytes.length, Integer.MAX_VALUE - 8))];
            }
            return bytes;
        }
    }

    private byte[] aad(byte[] header) {
        byte[] aad = Arrays.copyOf(header, HEADER_BYTES + unit.length);
        System.arraycopy(unit, 0, aad, HEADER_BYTES, unit.length);
        return aad;
    }
}
