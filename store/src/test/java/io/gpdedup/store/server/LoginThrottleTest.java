package io.gpdedup.store.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LoginThrottleTest {
    private static final long MS = 1_000_000L;
    private final AtomicLong now = new AtomicLong(1_000_000 * MS);
    private final LoginThrottle throttle = new LoginThrottle(200 * MS, 10_000 * MS, 600_000 * MS, now::get);
    private final InetAddress a = InetAddress.getLoopbackAddress();
    private final InetAddress b = InetAddress.getByAddress(new byte[] {10, 0, 0, 2});

    LoginThrottleTest() throws Exception {
    }

    @Test
    void penaltiesDoubleUpToTheCap() {
        assertEquals(0, throttle.reserveAttempt(a));
        long[] expected = {200, 400, 800, 1600, 3200, 6400, 10_000, 10_000};
        for (long ms : expected) {
            assertEquals(ms * MS, throttle.failed(a));
        }
        assertEquals(0, throttle.reserveAttempt(b), "other addresses are not slowed");
    }

    @Test
    void attemptsAfterAFailureQueueBehindEachOther() {
        throttle.failed(a);
        throttle.failed(a);
        // Two failures: next slot at +400 ms, each attempt then takes a 400 ms turn.
        assertEquals(400 * MS, throttle.reserveAttempt(a));
        assertEquals(800 * MS, throttle.reserveAttempt(a));
        now.addAndGet(2_000 * MS);
        assertEquals(0, throttle.reserveAttempt(a));
    }

    @Test
    void successAndQuietForget() {
        throttle.failed(a);
        throttle.succeeded(a);
        assertEquals(0, throttle.reserveAttempt(a));
        assertEquals(200 * MS, throttle.failed(a), "counting starts over");
        now.addAndGet(600_001 * MS);
        assertEquals(0, throttle.reserveAttempt(a));
        assertEquals(200 * MS, throttle.failed(a));
    }
}
