package io.gpdedup.dedup;

import io.gpdedup.plugin.api.PluginException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * {@code password_encryption: "on"}, following gpbackup's .encrypt convention: gpbackup reads a
 * secret for key {@code gpbackup_dedup_plugin} from {@code <coordinator data dir>/.encrypt} and adds
 * it to every copy of the config as option {@code gpbackup_dedup_plugin: <secret>}; the password
 * option then holds {@code base64(nonce || AES-256-GCM ciphertext)} under the key SHA-256(secret).
 * {@code gpbackup_dedup_plugin encrypt_password CFG} produces that value.
 */
final class PasswordCipher {
    private static final int NONCE = 12;
    private static final int TAG_BITS = 128;

    private PasswordCipher() {
    }

    static String encrypt(String password, String secret) {
        try {
            byte[] nonce = new byte[NONCE];
            new SecureRandom().nextBytes(nonce);
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, key(secret), new GCMParameterSpec(TAG_BITS, nonce));
            byte[] sealed = c.doFinal(password.getBytes(StandardCharsets.UTF_8));
            byte[] out = new byte[NONCE + sealed.length];
            System.arraycopy(nonce, 0, out, 0, NONCE);
            System.arraycopy(sealed, 0, out, NONCE, sealed.length);
            return Base64.getEncoder().encodeToString(out);
        } catch (GeneralSecurityException e) {
            throw new PluginException("cannot encrypt the password: " + e.getMessage(), e);
        }
    }

    static String decrypt(String encrypted, String secret) {
        byte[] in;
        try {
            in = Base64.getDecoder().decode(encrypted.trim());
        } catch (IllegalArgumentException e) {
            throw new PluginException("password_encryption is on but 'password' is not an encrypted password (not base64)");
        }
        if (in.length <= NONCE) {
            throw new PluginException("password_encryption is on but 'password' is too short to be an encrypted password");
        }
        try {
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.DECRYPT_MODE, key(secret), new GCMParameterSpec(TAG_BITS, in, 0, NONCE));
            return new String(c.doFinal(in, NONCE, in.length - NONCE), StandardCharsets.UTF_8);
        } catch (GeneralSecurityException e) {
            // Never echo the secret or the password: only say that they do not belong together.
            throw new PluginException("cannot decrypt 'password': it was not encrypted with this cluster's .encrypt key");
        }
    }

    private static SecretKeySpec key(String secret) throws GeneralSecurityException {
        return new SecretKeySpec(MessageDigest.getInstance("SHA-256").digest(secret.getBytes(StandardCharsets.UTF_8)), "AES");
    }
}
