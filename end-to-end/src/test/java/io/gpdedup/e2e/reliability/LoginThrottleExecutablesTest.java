package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreAuthException;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.store.auth.PasswordHash;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Password guessing from the backup host's own address and user against a real
 * {@code dist/bin/gpdedup-store}, 8 guessers at a time, at least 200 wrong logins: plugin calls
 * ({@code dist/bin/gpbackup_dedup_plugin}, each its own process, {@code GPDEDUP_AGENT=off} so each
 * logs in) made while the guessing goes on are refused at once with "login throttled" (not a
 * handshake timeout), exit non-zero and store nothing; the first call after it backs up and
 * restores byte for byte, at once or once the wait its refusal names is over.
 */
@Timeout(300)
class LoginThrottleExecutablesTest {
    private static final String PASSWORD = "throttle-test-password";
    private static final int GUESSERS = 8;
    private static final int MIN_GUESSES = 200;
    private static final int CALLS_DURING = 3;
    private static final Pattern TRY_AGAIN = Pattern.compile("login throttled: .*; try again in (\\d+) s");

    @TempDir
    Path dir;

    @Test
    void guessingDoesNotLockOutTheBackupHost() throws Exception {
        Path home = dir.resolve("store-home");
        StoreProcess.writeConfig(home, "data-dir: data\n", PASSWORD, PasswordHash.DEFAULT_ITERATIONS);
        try (StoreProcess store = StoreProcess.start(home)) {
            PluginShell plugin = new PluginShell(Dist.executable("gpbackup_dedup_plugin"), Files.createDirectories(dir.resolve("cwd")),
                    Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT", "off"));
            Path cfg = DedupFixture.writeConfig(dir.resolve("plugin.yaml"), store.port(), PASSWORD, dir.resolve("logs"), "");
            ClientSettings wrong = ClientSettings.of("127.0.0.1", store.port(), StoreProcess.UNIT, StoreProcess.USER, "not-the-password")
                    .withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(60));

            AtomicBoolean guessing = new AtomicBoolean(true);
            AtomicInteger guesses = new AtomicInteger();
            Map<String, Integer> outcomes = new ConcurrentHashMap<>();
            ExecutorService threads = Executors.newFixedThreadPool(GUESSERS);
            List<Future<?>> guessers = new ArrayList<>();
            for (int i = 0; i < GUESSERS; i++) {
                guessers.add(threads.submit(() -> {
                    while (guesses.getAndIncrement() < MIN_GUESSES || guessing.get()) {
                        outcomes.merge(guess(wrong), 1, Integer::sum);
                    }
                }));
            }
            List<CallResult> during = new ArrayList<>();
            List<String> keys = new ArrayList<>();
            try {
                for (int i = 0; i < CALLS_DURING; i++) {
                    keys.add(key(i));
                    during.add(plugin.run(new ByteArrayInputStream(SeededBytes.array(i, 100_000)), "backup_data", cfg.toString(), key(i)));
                }
            } finally {
                guessing.set(false);
                for (Future<?> f : guessers) {
                    f.get();
                }
                threads.shutdown();
            }
            long t0 = System.nanoTime();
            byte[] data = SeededBytes.array(99, 1_000_000);
            CallResult first = plugin.run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), key(99));
            String waited = "";
            if (first.exitCode() != 0) {
                // The last guesses' delays may still run: the refusal says how long, and after that the right password gets in.
                Matcher m = TRY_AGAIN.matcher(first.stderr());
                assertTrue(m.find(), first.toString());
                waited = " after waiting the " + m.group(1) + " s its refusal named";
                TimeUnit.SECONDS.sleep(Long.parseLong(m.group(1)) + 1);
                plugin.run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), key(99)).assertSucceeded();
            }
            long afterMillis = (System.nanoTime() - t0) / 1_000_000;
            assertArrayEquals(data, plugin.run("restore_data", cfg.toString(), key(99)).assertSucceeded().stdout());

            int throttledCalls = 0;
            for (int i = 0; i < during.size(); i++) {
                CallResult r = during.get(i);
                if (r.exitCode() == 0) {
                    continue; // it logged in in a gap between guesses: a right password may
                }
                throttledCalls++;
                assertTrue(r.stderr().contains("login throttled"), r.toString());
                assertFalse(r.stderr().contains("handshake"), r.toString());
                assertEquals(0, r.stdoutBytes(), r.toString());
                plugin.run("restore_data", cfg.toString(), keys.get(i)).assertFailed();
            }
            String message = during.stream().filter(r -> r.exitCode() != 0).map(r -> r.stderr().strip()).findFirst().orElse("");
            System.out.printf("wrong logins by %d guessers: %s; %d of %d plugin calls during the guessing refused: %s; the first call after"
                    + " it backed up and restored%s (backup took %d ms)%n", GUESSERS, outcomes, throttledCalls, during.size(), message, waited, afterMillis);
            assertEquals(Set.of("AUTH_FAILED", "THROTTLED"), outcomes.keySet(), "how wrong logins were answered");
            assertTrue(outcomes.values().stream().mapToInt(Integer::intValue).sum() >= MIN_GUESSES, outcomes.toString());
            assertTrue(throttledCalls > 0, "no plugin call was throttled while guessing went on: " + during);
        }
    }

    /**
     * One user typing a wrong password again and again, one plugin call at a time: each call fails
     * with one line, the first ones "authentication failed", then, once the store holds the user's
     * logins back for longer than it holds the reply, "login throttled" and for how long: never
     * the handshake timeout that a reply held back past the plugin's connect timeout (10 s) gave.
     */
    @Test
    void aThrottledLoginIsReportedAsThrottledWithHowLong() throws Exception {
        Path home = dir.resolve("store-home");
        StoreProcess.writeConfig(home, "data-dir: data\n", PASSWORD, 1_000);
        try (StoreProcess store = StoreProcess.start(home)) {
            PluginShell plugin = new PluginShell(Dist.executable("gpbackup_dedup_plugin"), Files.createDirectories(dir.resolve("cwd")),
                    Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT", "off"));
            Path cfg = DedupFixture.writeConfig(dir.resolve("wrong.yaml"), store.port(), "not-the-password", dir.resolve("logs"), "");
            List<String> lines = new ArrayList<>();
            // Held back 0.2, 0.4, 0.8, 1.6, 3.2, 6.4, 10, 10 s: the 7th and 8th went past the connect timeout.
            for (int i = 0; i < 8; i++) {
                CallResult r = plugin.run("restore_data", cfg.toString(), key(i));
                assertTrue(r.exitCode() != 0, r.toString());
                String err = r.stderr().strip();
                assertEquals(1, err.lines().count(), err);
                assertFalse(err.contains("handshake") || err.contains("Exception"), err);
                lines.add(err);
            }
            assertTrue(lines.get(0).contains("authentication failed: wrong storage unit, user or password"), lines.get(0));
            assertFalse(lines.get(0).contains("throttled"), "the first failures are held back in full: " + lines.get(0));
            String last = lines.get(lines.size() - 1);
            assertTrue(last.matches(".*login throttled: .* (are refused for the next|try again in) \\d+ s.*"), last);
            System.out.println("8 wrong passwords in a row, the plugin's errors: first " + lines.get(0) + "; last " + last);
        }
    }

    /** One wrong login: how the store answered it. */
    private static String guess(ClientSettings wrong) {
        try {
            StoreClient.connect(wrong).close();
            return "logged in";
        } catch (StoreAuthException e) {
            return "AUTH_FAILED";
        } catch (StoreServerException e) {
            return e.code().name();
        } catch (RuntimeException e) {
            return e.toString();
        }
    }

    private static String key(int n) {
        String ts = String.format("202611231600%02d", n);
        return "/data/gpseg0/backups/" + ts.substring(0, 8) + "/" + ts + "/gpbackup_0_" + ts + "_1";
    }
}
