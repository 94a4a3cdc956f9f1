package io.gpdedup.store.auth;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks a unit, user and password against the configured hashes. An unknown unit or user costs
 * the same PBKDF2 work as a wrong password, so timing does not tell which was wrong.
 *
 * <p>The plugin logs in once per call, thousands of times per backup, so a login that succeeded
 * is remembered as an HMAC (under a key that lives only in this process) of what was checked; the
 * same credentials then cost one HMAC instead of the full PBKDF2 work.
 */
public final class Authenticator {
    private volatile Map<String, Map<String, PasswordHash>> units;
    private final PasswordHash decoy;
    private final byte[] cacheKey = new byte[32];
    private final Map<String, byte[]> verified = new ConcurrentHashMap<>();

    public Authenticator(Map<String, Map<String, PasswordHash>> units) {
        int iterations = PasswordHash.DEFAULT_ITERATIONS;
        for (var e : units.entrySet()) {
            for (PasswordHash h : e.getValue().values()) {
                iterations = h.iterations();
            }
        }
        this.units = copy(units);
        this.decoy = PasswordHash.decoy(iterations);
        new SecureRandom().nextBytes(cacheKey);
    }

    private static Map<String, Map<String, PasswordHash>> copy(Map<String, Map<String, PasswordHash>> units) {
        Map<String, Map<String, PasswordHash>> copy = new HashMap<>();
        units.forEach((unit, users) -> copy.put(unit, Map.copyOf(users)));
        return Map.copyOf(copy);
    }

    /** From now on, logins are checked against {@code newUnits}; remembered logins stay valid only while their hash is unchanged. */
    public void replace(Map<String, Map<String, PasswordHash>> newUnits) {
        units = copy(newUnits);
    }

    /** Whether {@code user} of {@code unit} has this password. Slow (PBKDF2) unless remembered. */
    boolean verify(String unit, String user, String password) {
        PasswordHash hash = units.getOrDefault(unit, Map.of()).get(user);
        if (hash == null) {
            decoy.matches(password.toCharArray());
            return false;
        }
        String who = unit + '\0' + user;
        byte[] mac = mac(who + '\0' + password + '\0' + hash.encoded());
        byte[] known = verified.get(who);
        if (known != null && MessageDigest.isEqual(known, mac)) {
            return true;
        }
        boolean ok = hash.matches(password.toCharArray());
        if (ok) {
            verified.put(who, mac);
        }
        return ok;
    }

    private byte[] mac(String text) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(cacheKey, "HmacSHA256"));
            return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is required by every JDK", e);
        }
    }
}
