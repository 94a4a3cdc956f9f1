package io.gpdedup.store.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The throttle's rules on a virtual clock; {@code LoginLockoutTest} holds a real server to them. */
class LoginThrottleTest {
    private static final long MS = 1_000_000L;
    private final AtomicLong now = new AtomicLong(1_000_000 * MS);
    private final LoginThrottle throttle = new LoginThrottle(200 * MS, 10_000 * MS, 600_000 * MS, 16, now::get);
    private final InetAddress a = InetAddress.getLoopbackAddress();
    private final InetAddress b = InetAddress.getByAddress(new byte[] {127, 0, 0, 2});

    LoginThrottleTest() throws Exception {
    }

    private LoginThrottle.Ticket admitted(InetAddress from, String user) {
        return assertInstanceOf(LoginThrottle.Admitted.class, throttle.admit(from, user), user + " from " + from).ticket();
    }

    private String refused(InetAddress from, String user) {
        String message = assertInstanceOf(LoginThrottle.Refused.class, throttle.admit(from, user), user + " from " + from).message();
        assertTrue(message.startsWith("login throttled: "), message);
        return message;
    }

    /** One wrong password, its reply sent: returns the delay it was held back. */
    private long fail(InetAddress from, String user) {
        LoginThrottle.Ticket t = admitted(from, user);
        long delay = t.failed();
        t.release();
        return delay;
    }

    @Test
    void penaltiesDoubleUpToTheCap() {
        long[] expected = {200, 400, 800, 1600, 3200, 6400, 10_000, 10_000};
        for (long ms : expected) {
            assertEquals(ms * MS, fail(a, "alice"));
        }
    }

    @Test
    void aSuspectPairHasOneAttemptInFlightAndTheOthersAreToldAtOnce() {
        fail(a, "alice");
        LoginThrottle.Ticket first = admitted(a, "alice");
        assertTrue(refused(a, "alice").contains("user 'alice' from 127.0.0.1; try again in 1 s"), "200 ms, rounded up");
        admitted(b, "alice").release(); // another address: its own pair
        admitted(a, "bob").release(); // another user
        first.release();
        admitted(a, "alice").release();
    }

    @Test
    void aRightPasswordAfterTwoHundredWrongOnesGetsInAtOnce() {
        for (int i = 0; i < 200; i++) {
            fail(a, "alice");
        }
        LoginThrottle.Ticket right = admitted(a, "alice");
        right.succeeded();
        right.release();
        // The success forgets the pair's failures, so parallel logins (the plugin's jobs) are not held to
        // one at a time; while the user's failures are on record, to four.
        List<LoginThrottle.Ticket> parallel = new ArrayList<>();
        for (int i = 0; i < LoginThrottle.SUSPECT_SCOPE_IN_FLIGHT; i++) {
            parallel.add(admitted(a, "alice"));
        }
        assertTrue(refused(a, "alice").contains("too many failed logins for user 'alice'; try again in 10 s"));
        parallel.get(0).succeeded(); // a success with no failure of the pair in between: known good
        parallel.forEach(LoginThrottle.Ticket::release);
        List<LoginThrottle.Ticket> more = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            more.add(admitted(a, "alice"));
        }
        more.forEach(LoginThrottle.Ticket::release);
    }

    @Test
    void guessingFromElsewhereDoesNotLockOutAKnownGoodHost() {
        LoginThrottle.Ticket good = admitted(a, "backup");
        good.succeeded();
        good.release();
        List<LoginThrottle.Ticket> guesses = new ArrayList<>();
        for (int i = 0; i < LoginThrottle.SUSPECT_SCOPE_IN_FLIGHT; i++) {
            InetAddress from = address(10 + i);
            fail(from, "backup");
            guesses.add(admitted(from, "backup"));
        }
        assertTrue(refused(address(99), "backup").contains("too many failed logins for user 'backup';"));
        List<LoginThrottle.Ticket> backups = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            backups.add(admitted(a, "backup")); // the backup host: its own pair never failed
        }
        backups.forEach(LoginThrottle.Ticket::release);
        guesses.forEach(LoginThrottle.Ticket::release);
        admitted(address(99), "backup").release();
    }

    @Test
    void guessingOtherUsersFromAHostDoesNotLockOutItsKnownGoodUser() {
        LoginThrottle.Ticket good = admitted(a, "backup");
        good.succeeded();
        good.release();
        List<LoginThrottle.Ticket> guesses = new ArrayList<>();
        for (int i = 0; i < LoginThrottle.SUSPECT_SCOPE_IN_FLIGHT; i++) {
            fail(a, "user" + i);
            guesses.add(admitted(a, "user" + i));
        }
        assertTrue(refused(a, "someone-else").contains("too many failed logins from 127.0.0.1;"));
        admitted(a, "backup").release();
        guesses.forEach(LoginThrottle.Ticket::release);
    }

    @Test
    void checksInFlightAreBoundedButKnownGoodPairsPassTheBound() {
        LoginThrottle.Ticket good = admitted(a, "backup");
        good.succeeded();
        good.release();
        List<LoginThrottle.Ticket> held = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            held.add(admitted(address(i + 1), "user" + i));
        }
        assertEquals(16, throttle.pending());
        assertTrue(refused(address(50), "late").contains("16 logins are already being checked"));
        admitted(a, "backup").release();
        held.forEach(LoginThrottle.Ticket::release);
        assertEquals(0, throttle.pending());
        admitted(address(50), "late").release();
    }

    @Test
    void aFailureAfterASuccessCountsAgainAndQuietForgets() {
        LoginThrottle.Ticket ok = admitted(a, "alice");
        ok.succeeded();
        ok.release();
        assertEquals(200 * MS, fail(a, "alice"), "a known-good pair pays its own failures");
        LoginThrottle.Ticket held = admitted(a, "alice");
        refused(a, "alice");
        held.release();
        now.addAndGet(600_001 * MS);
        LoginThrottle.Ticket one = admitted(a, "alice");
        LoginThrottle.Ticket two = admitted(a, "alice");
        one.release();
        two.release();
        assertEquals(200 * MS, fail(a, "alice"), "counting starts over");
    }

    @Test
    void releaseIsIdempotent() {
        LoginThrottle.Ticket t = admitted(a, "alice");
        t.failed();
        t.release();
        t.release();
        assertEquals(0, throttle.pending());
        admitted(a, "alice").release();
    }

    private static InetAddress address(int last) {
        try {
            return InetAddress.getByAddress(new byte[] {10, 0, 0, (byte) last});
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }
}
