package io.gpdedup.store.crypt;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import javax.crypto.SecretKey;

/**
 * The key-encryption key: 32 random bytes that wrap every unit's data keys ({@link DataKeys}) and
 * nothing else. Its text form (what {@code gpdedup-store new-key} writes and a key command
 * prints) is a versioned header line and the key in base64, so that a short, cut or foreign file
 * is told apart from a key (docs/store.md).
 */
public final class Kek {
    static final String HEADER = "gpdedup-key v1";

    private final SecretKey key;
    private final String id;

    private Kek(byte[] raw) {
        this.key = Gcm.key(raw);
        this.id = idOf(raw);
    }

    /** A new random key. */
    public static Kek generate() {
        return new Kek(Gcm.randomBytes(Gcm.KEY_BYTES));
    }

    /**
     * The key in {@code text} (a key file's contents); {@link KeyException} naming {@code setting}
     * when it is not one. The message never quotes the text: it may be a key.
     */
    public static Kek parse(String text, String setting) {
        String[] lines = text.strip().split("\\R");
        if (lines.length != 2 || !lines[0].strip().equals(HEADER)) {
            throw new KeyException(setting + ": not a gpdedup key (expected the line '" + HEADER
                    + "' and a key line, as gpdedup-store new-key writes)");
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(lines[1].strip());
        } catch (IllegalArgumentException e) {
            raw = new byte[0];
        }
        if (raw.length != Gcm.KEY_BYTES) {
            throw new KeyException(setting + ": the key line is not " + Gcm.KEY_BYTES + " bytes in base64 (a cut or edited key?)");
        }
        return new Kek(raw);
    }

    /** The text a key file holds. */
    public String toText() {
        return HEADER + "\n" + Base64.getEncoder().encodeToString(key.getEncoded()) + "\n";
    }

    /**
     * A short name of the key that tells keys apart without revealing them (a hash of the key),
     * written beside every data key it wraps so that a wrong key is reported as such.
     */
    public String id() {
        return id;
    }

    SecretKey secret() {
        return key;
    }

    private static String idOf(byte[] raw) {
        try {
            MessageDigest d = MessageDigest.getInstance("SHA-256");
            d.update("gpdedup key id\0".getBytes(StandardCharsets.US_ASCII));
            d.update(raw);
            return HexFormat.of().formatHex(d.digest(), 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String toString() {
        return "key " + id;
    }
}
