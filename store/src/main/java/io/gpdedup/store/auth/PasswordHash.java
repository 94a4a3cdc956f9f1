package io.gpdedup.store.auth;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * A salted PBKDF2-HMAC-SHA256 password hash as written in the config:
 * {@code pbkdf2-sha256$<iterations>$<base64 salt>$<base64 hash>} (base64 without padding).
 */
public final class PasswordHash {
    static final String SCHEME = "pbkdf2-sha256";
    public static final int DEFAULT_ITERATIONS = 210_000;
    private static final int SALT_BYTES = 16;
    private static final int HASH_BYTES = 32;
    private static final int MIN_ITERATIONS = 1_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final int iterations;
    private final byte[] salt;
    private final byte[] hash;

    private PasswordHash(int iterations, byte[] salt, byte[] hash) {
        this.iterations = iterations;
        this.salt = salt;
        this.hash = hash;
    }

    /** A new hash of {@code password} with a fresh random salt. */
    public static PasswordHash create(char[] password, int iterations) {
        if (iterations < MIN_ITERATIONS) {
            throw new IllegalArgumentException("at least " + MIN_ITERATIONS + " iterations");
        }
        byte[] salt = new byte[SALT_BYTES];
        RANDOM.nextBytes(salt);
        return new PasswordHash(iterations, salt, derive(password, salt, iterations, HASH_BYTES));
    }

    /**
     * A hash no password matches (random salt and random bytes) that costs a check the same work as
     * a real one with {@code iterations}: made without deriving anything, so it costs nothing to make.
     */
    public static PasswordHash decoy(int iterations) {
        byte[] salt = new byte[SALT_BYTES];
        byte[] hash = new byte[HASH_BYTES];
        RANDOM.nextBytes(salt);
        RANDOM.nextBytes(hash);
        return new PasswordHash(Math.max(iterations, MIN_ITERATIONS), salt, hash);
    }

    /**
     * Reads the config form.
     *
     * @throws IllegalArgumentException saying what is wrong with it (never echoing it)
     */
    public static PasswordHash parse(String text) {
        String[] parts = text.split("\\$", -1);
        if (parts.length != 4 || !parts[0].equals(SCHEME)) {
            throw new IllegalArgumentException("a password hash looks like " + SCHEME
                    + "$<iterations>$<salt>$<hash>; make one with `gpdedup-store hash-password`");
        }
        int iterations;
        try {
            iterations = Integer.parseInt(parts[1]);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("password hash: iterations are not a number");
        }
        if (iterations < MIN_ITERATIONS) {
            throw new IllegalArgumentException("password hash: fewer than " + MIN_ITERATIONS + " iterations");
        }
        byte[] salt;
        byte[] hash;
        try {
            salt = Base64.getDecoder().decode(parts[2]);
            hash = Base64.getDecoder().decode(parts[3]);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("password hash: salt or hash is not base64");
        }
        if (salt.length < 8 || hash.length < 16) {
            throw new IllegalArgumentException("password hash: salt or hash too short");
        }
        return new PasswordHash(iterations, salt, hash);
    }

    /** Whether {@code password} matches; the comparison takes the same time wherever they differ. */
    public boolean matches(char[] password) {
        byte[] candidate = derive(password, salt, iterations, hash.length);
        return MessageDigest.isEqual(candidate, hash);
    }

    public int iterations() {
        return iterations;
    }

    /** The config form. */
    public String encoded() {
        Base64.Encoder b64 = Base64.getEncoder().withoutPadding();
        return SCHEME + "$" + iterations + "$" + b64.encodeToString(salt) + "$" + b64.encodeToString(hash);
    }

    @Override
    public String toString() {
        return SCHEME + "$" + iterations + "$...";
    }

    private static byte[] derive(char[] password, byte[] salt, int iterations, int bytes) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, bytes * 8);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is required by every JDK", e);
        } finally {
            spec.clearPassword();
        }
    }
}
