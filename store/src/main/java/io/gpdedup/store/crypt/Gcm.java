package io.gpdedup.store.crypt;

import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import javax.crypto.AEADBadTagException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * AES-256-GCM from the JDK, one cipher object per thread (they are not thread-safe, and making
 * one per call costs more than the encryption of a small chunk).
 *
 * <p>Nonces are 96 random bits from {@link SecureRandom}, per record and per blob segment. With
 * random nonces the chance that two of n encryptions under one key share a nonce is about
 * n^2 / 2^97; NIST SP 800-38D asks that it stay below 2^-32, which holds up to 2^32 encryptions
 * per key: at the store's chunk sizes (tens of KiB on average) that is over 100 TiB written under
 * one data key, and a unit can be given a new data key ({@link DataKeys}) long before that. A
 * counter would need state that survives crashes and restores of the data directory, which a
 * random nonce does not.
 */
final class Gcm {
    static final int KEY_BYTES = 32;
    static final int NONCE_BYTES = 12;
    static final int TAG_BYTES = 16;
    private static final int TAG_BITS = TAG_BYTES * 8;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final ThreadLocal<Cipher> CIPHERS = ThreadLocal.withInitial(() -> {
        try {
            return Cipher.getInstance("AES/GCM/NoPadding");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this Java runtime has no AES/GCM: " + e.getMessage(), e);
        }
    });

    private Gcm() {
    }

    static byte[] randomBytes(int n) {
        byte[] b = new byte[n];
        RANDOM.nextBytes(b);
        return b;
    }

    static SecretKey key(byte[] raw) {
        if (raw.length != KEY_BYTES) {
            throw new IllegalArgumentException("an AES-256 key has " + KEY_BYTES + " bytes, not " + raw.length);
        }
        return new SecretKeySpec(raw, "AES");
    }

    /** A cipher of this thread set up to encrypt under {@code key} and {@code nonce} with {@code aad}. */
    private static Cipher encryptor(SecretKey key, byte[] nonce, byte[] aad) {
        return init(Cipher.ENCRYPT_MODE, key, nonce, aad);
    }

    private static Cipher decryptor(SecretKey key, byte[] nonce, byte[] aad) {
        return init(Cipher.DECRYPT_MODE, key, nonce, aad);
    }

    private static Cipher init(int mode, SecretKey key, byte[] nonce, byte[] aad) {
        Cipher c = CIPHERS.get();
        try {
            c.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot set up AES-GCM: " + e.getMessage(), e);
        }
        c.updateAAD(aad);
        return c;
    }

    /** Encrypts {@code plain} whole: ciphertext then tag. */
    static byte[] seal(SecretKey key, byte[] nonce, byte[] aad, byte[] plain, int off, int len) {
        try {
            return encryptor(key, nonce, aad).doFinal(plain, off, len);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM failed: " + e.getMessage(), e);
        }
    }

    /** Decrypts and authenticates ciphertext plus tag; null when it does not authenticate. */
    static byte[] open(SecretKey key, byte[] nonce, byte[] aad, byte[] sealed, int off, int len) {
        if (len < TAG_BYTES) {
            return null;
        }
        try {
            return decryptor(key, nonce, aad).doFinal(sealed, off, len);
        } catch (AEADBadTagException e) {
            return null;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM failed: " + e.getMessage(), e);
        }
    }

    /**
     * As {@link #open(SecretKey, byte[], byte[], byte[], int, int)}, into {@code out} from 0 (at
     * least {@code len - TAG_BYTES} long); false when it does not authenticate.
     */
    static boolean openInto(SecretKey key, byte[] nonce, byte[] aad, byte[] sealed, int off, int len, byte[] out) {
        if (len < TAG_BYTES) {
            return false;
        }
        try {
            decryptor(key, nonce, aad).doFinal(sealed, off, len, out, 0);
            return true;
        } catch (AEADBadTagException e) {
            return false;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM failed: " + e.getMessage(), e);
        }
    }

    /** Encrypts {@code len} bytes of {@code plain} into {@code out} from 0: ciphertext then tag; returns the bytes written. */
    static int sealInto(SecretKey key, byte[] nonce, byte[] aad, byte[] plain, int len, byte[] out) {
        try {
            return encryptor(key, nonce, aad).doFinal(plain, 0, len, out, 0);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM failed: " + e.getMessage(), e);
        }
    }
}
