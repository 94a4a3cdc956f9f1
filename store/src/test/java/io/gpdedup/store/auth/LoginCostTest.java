package io.gpdedup.store.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreAuthException;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.store.net.StoreFixture;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a login costs, measured: the production PBKDF2 parameters, the decoy work for an unknown
 * unit or user, the remembered login, and the throttle over the wire. Prints its figures for
 * docs/reliability.md section 5.
 */
@Timeout(120)
class LoginCostTest {
    private static final int ROUNDS = 5;
    private static final long MS = 1_000_000L;

    @Test
    void everyWrongLoginCostsAFullHashAndARememberedOneDoesNot() {
        char[] password = "correct horse battery staple".toCharArray();
        PasswordHash hash = PasswordHash.create(password, PasswordHash.DEFAULT_ITERATIONS);
        String[] parts = hash.encoded().split("\\$");
        assertEquals("pbkdf2-sha256", parts[0]);
        assertEquals(210_000, Integer.parseInt(parts[1]));
        assertEquals(16, Base64.getDecoder().decode(parts[2]).length, "salt bytes");
        assertEquals(32, Base64.getDecoder().decode(parts[3]).length, "hash bytes");

        Authenticator auth = new Authenticator(Map.of("prod", Map.of("alice", hash)));
        hash.matches(password); // JIT and provider lookup out of the figures
        long right = median(() -> hash.matches(password));
        long wrong = median(() -> !hash.matches("correct horse battery stapler".toCharArray()));
        long wrongPassword = median(() -> !auth.verify("prod", "alice", "not it"));
        long unknownUser = median(() -> !auth.verify("prod", "mallory", "not it"));
        long unknownUnit = median(() -> !auth.verify("lab", "alice", "not it"));
        assertTrue(auth.verify("prod", "alice", new String(password)));
        long remembered = median(() -> auth.verify("prod", "alice", new String(password)));
        System.out.printf("PBKDF2-HMAC-SHA256 x %d, 16-byte salt, 32-byte hash: %.1f ms right, %.1f ms wrong (median of %d); login check:"
                + " wrong password %.1f ms, unknown user %.1f ms, unknown unit %.1f ms, remembered login %.3f ms%n",
                PasswordHash.DEFAULT_ITERATIONS, right / 1e6, wrong / 1e6, ROUNDS, wrongPassword / 1e6, unknownUser / 1e6, unknownUnit / 1e6,
                remembered / 1e6);
        // Without the decoy an unknown name would answer in microseconds and tell that it is unknown.
        assertTrue(unknownUser * 2 > wrongPassword, "unknown user " + unknownUser + " ns vs wrong password " + wrongPassword + " ns");
        assertTrue(unknownUnit * 2 > wrongPassword, "unknown unit " + unknownUnit + " ns vs wrong password " + wrongPassword + " ns");
        assertTrue(remembered * 20 < right, "a remembered login skips PBKDF2: " + remembered + " ns");
        assertFalse(auth.verify("prod", "alice", "correct horse battery stapl"), "a remembered login remembers only its own password");
    }

    /**
     * Wrong passwords over the wire against a real server: the first failure is already held back
     * 200 ms, and each further one for the same user from the same address doubles it (to 10 s).
     * After the right password, a burst of concurrent wrong ones: those checked before the first
     * failure of the burst are refused after their delay; once the pair has failed again, the
     * others are answered THROTTLED at once, without their password being checked.
     */
    @Test
    void wrongPasswordsAreSlowedDownOverTheWire(@TempDir Path dir) throws Exception {
        long[] penalties = {200, 400, 800, 1600};
        try (StoreFixture store = StoreFixture.start(dir)) {
            ClientSettings a = store.settingsA();
            ClientSettings wrong = new ClientSettings(a.host(), a.port(), a.unit(), a.user(), "not-the-password", a.connectTimeout(), a.readTimeout());
            long[] sequential = new long[penalties.length];
            for (int i = 0; i < penalties.length; i++) {
                long t0 = System.nanoTime();
                assertThrows(StoreAuthException.class, () -> StoreClient.connect(wrong));
                sequential[i] = (System.nanoTime() - t0) / MS;
            }
            long t0 = System.nanoTime();
            try (StoreClient ok = store.connectA()) {
                ok.ping();
            }
            long rightAfter = (System.nanoTime() - t0) / MS;

            List<CompletableFuture<String>> burst = new ArrayList<>();
            ExecutorService threads = Executors.newFixedThreadPool(penalties.length);
            long b0 = System.nanoTime();
            for (int i = 0; i < penalties.length; i++) {
                burst.add(CompletableFuture.supplyAsync(() -> {
                    StoreClientException e = assertThrows(StoreClientException.class, () -> StoreClient.connect(wrong));
                    long at = (System.nanoTime() - b0) / MS;
                    if (e instanceof StoreAuthException) {
                        assertTrue(at >= penalties[0], "a refused password answered after " + at + " ms");
                        return "refused at " + at + " ms";
                    }
                    assertEquals(ErrorCode.THROTTLED, ((StoreServerException) e).code(), e.getMessage());
                    assertTrue(e.getMessage().contains("login throttled"), e.getMessage());
                    return "throttled at " + at + " ms";
                }, threads));
            }
            List<String> outcomes = burst.stream().map(CompletableFuture::join).sorted().toList();
            threads.shutdown();
            System.out.printf("wrong logins from one address, one after another: %s ms (throttle: %s ms); then the right password: %d ms;"
                    + " a burst of %d at once: %s%n",
                    Arrays.toString(sequential), Arrays.toString(penalties), rightAfter, penalties.length, outcomes);
            for (int i = 0; i < penalties.length; i++) {
                assertTrue(sequential[i] >= penalties[i], "failure " + (i + 1) + " answered after " + sequential[i] + " ms");
            }
            assertTrue(outcomes.stream().anyMatch(o -> o.startsWith("refused")), outcomes.toString());
        }
    }

    /** Median wall time of {@link #ROUNDS} calls, each of which must return true. */
    private static long median(BooleanSupplier call) {
        long[] t = new long[ROUNDS];
        for (int i = 0; i < ROUNDS; i++) {
            long t0 = System.nanoTime();
            assertTrue(call.getAsBoolean());
            t[i] = System.nanoTime() - t0;
        }
        Arrays.sort(t);
        return t[ROUNDS / 2];
    }
}
