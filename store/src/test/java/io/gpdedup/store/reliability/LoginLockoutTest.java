package io.gpdedup.store.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * 200 wrong logins from the backup host's own address, 8 at a time, must not lock the host out:
 * every one is answered (a held-back AUTH_FAILED, or at once THROTTLED "login throttled" when the
 * same user and address already has an attempt in flight), and then the right password, with the
 * client's normal timeouts, logs in (at once, or once the wait its refusal names is over) and
 * serves a backup and a restore.
 */
@Timeout(300)
class LoginLockoutTest {
    private static final int WRONG_LOGINS = 200;
    private static final int CONCURRENCY = 8;

    @TempDir
    Path dir;

    @Test
    void twoHundredWrongLoginsDoNotLockOutTheRightPassword() throws Exception {
        try (StoreFixture store = StoreFixture.start(dir)) {
            ClientSettings right = store.settingsA();
            ClientSettings wrong = new ClientSettings(right.host(), right.port(), right.unit(), right.user(), "not-the-password",
                    right.connectTimeout(), right.readTimeout());
            AtomicInteger left = new AtomicInteger(WRONG_LOGINS);
            AtomicInteger refused = new AtomicInteger();
            List<String> throttled = Collections.synchronizedList(new ArrayList<>());
            List<Throwable> unexpected = Collections.synchronizedList(new ArrayList<>());
            ExecutorService threads = Executors.newFixedThreadPool(CONCURRENCY);
            long t0 = System.nanoTime();
            List<Future<?>> guessers = new ArrayList<>();
            for (int i = 0; i < CONCURRENCY; i++) {
                guessers.add(threads.submit(() -> {
                    while (left.getAndDecrement() > 0) {
                        try {
                            StoreClient.connect(wrong).close();
                            unexpected.add(new AssertionError("a wrong password logged in"));
                        } catch (StoreAuthException e) {
                            refused.incrementAndGet();
                        } catch (StoreServerException e) {
                            if (e.code() == ErrorCode.THROTTLED) {
                                throttled.add(e.getMessage());
                            } else {
                                unexpected.add(e);
                            }
                        } catch (StoreClientException e) {
                            unexpected.add(e);
                        }
                    }
                }));
            }
            for (Future<?> f : guessers) {
                f.get();
            }
            threads.shutdown();
            assertTrue(threads.awaitTermination(10, TimeUnit.SECONDS));
            long guessingMillis = (System.nanoTime() - t0) / 1_000_000;

            long r0 = System.nanoTime();
            byte[] data = ObjectIo.random(7, 300_000);
            try (StoreClient client = loginOnceTheRefusalAllows(right)) {
                long loginMillis = (System.nanoTime() - r0) / 1_000_000;
                ObjectIo.write(client, "after-the-guessing", data, 16_384);
                assertArrayEquals(data, ObjectIo.read(client, "after-the-guessing"));
                System.out.printf("%d wrong logins, %d at a time, from 127.0.0.1 in %d ms: %d refused after their password check"
                        + " (AUTH_FAILED), %d throttled at once; then the right password logged in after %d ms%n",
                        WRONG_LOGINS, CONCURRENCY, guessingMillis, refused.get(), throttled.size(), loginMillis);
            }
            assertEquals(List.of(), unexpected, "every wrong login is refused with AUTH_FAILED or THROTTLED");
            assertEquals(WRONG_LOGINS, refused.get() + throttled.size());
            assertTrue(refused.get() > 0 && !throttled.isEmpty(), refused + " refused, " + throttled.size() + " throttled");
            for (String m : throttled) {
                assertTrue(m.contains("refused the login: login throttled: too many failed logins for user '" + StoreFixture.USER_A
                        + "' from 127.0.0.1; try again in "), m);
            }
        }
    }

    /**
     * The right password: at once, or, while the last guesses' delays still run, refused with
     * "try again in N s" and then let in once those N s are over.
     */
    private static StoreClient loginOnceTheRefusalAllows(ClientSettings right) throws InterruptedException {
        try {
            return StoreClient.connect(right);
        } catch (StoreServerException e) {
            assertEquals(ErrorCode.THROTTLED, e.code(), e.getMessage());
            Matcher m = Pattern.compile("try again in (\\d+) s").matcher(e.getMessage());
            assertTrue(m.find(), e.getMessage());
            TimeUnit.SECONDS.sleep(Long.parseLong(m.group(1)) + 1);
            return StoreClient.connect(right);
        }
    }
}
