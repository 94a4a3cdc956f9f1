package io.gpdedup.store.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.log.RefusalLog;
import io.gpdedup.store.metrics.StoreMetrics;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.util.AttributeKey;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The limiter's rules on channels that need no socket; {@code ConnectionFloodTest} (end-to-end) holds a real store to them. */
class ConnectionLimiterTest {
    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();
    private final AtomicLong openDescriptors = new AtomicLong(100);
    private final AtomicLong now = new AtomicLong(1);
    private final ConnectionLimiter limiter = new ConnectionLimiter(10, 8, 1000, openDescriptors::get, now::get,
            new RefusalLog(scheduler), new StoreMetrics());
    private static final AttributeKey<ConnectionLimiter.Admission> ADMISSION = AttributeKey.valueOf("test.admission");
    private final InetAddress a = InetAddress.getLoopbackAddress();
    private final InetAddress b = InetAddress.getByAddress(new byte[] {127, 0, 0, 2});

    ConnectionLimiterTest() throws Exception {
    }

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    private EmbeddedChannel connect(InetAddress from, boolean expectAdmitted) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ConnectionLimiter.Admission admission = limiter.admit(ch, from);
        if (expectAdmitted) {
            assertNotNull(admission, "admitted from " + from);
            ch.closeFuture().addListener(f -> limiter.closed(admission));
            ch.attr(ADMISSION).set(admission);
        } else {
            assertNull(admission, "refused from " + from);
        }
        return ch;
    }

    private static void logIn(EmbeddedChannel ch) {
        ch.attr(ADMISSION).get().loginStarted();
    }

    @Test
    void theOldestWaitingConnectionOfAnAddressMakesRoomForANewOne() {
        assertEquals(4, limiter.maxWaitingPerAddress());
        List<EmbeddedChannel> idle = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            idle.add(connect(a, true));
        }
        EmbeddedChannel fifth = connect(a, true);
        idle.get(0).runPendingTasks();
        assertFalse(idle.get(0).isOpen(), "the oldest waiting one was closed");
        assertTrue(idle.get(1).isOpen() && fifth.isOpen());
        assertEquals(4, limiter.connections());
    }

    @Test
    void loggedInConnectionsAreNeverClosedForANewcomer() {
        for (int i = 0; i < 8; i++) {
            logIn(connect(a, true));
        }
        connect(a, false); // over max-connections-per-address 8, nothing waiting to close
        for (int i = 0; i < 2; i++) {
            logIn(connect(b, true));
        }
        connect(b, false); // over max-connections 10
        assertEquals(10, limiter.connections());
    }

    @Test
    void aFullServerClosesTheOldestWaitingConnectionOfAnyAddress() {
        List<EmbeddedChannel> fromB = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            fromB.add(connect(b, true));
        }
        for (int i = 0; i < 7; i++) {
            logIn(connect(a, true));
        }
        EmbeddedChannel late = connect(a, true); // a has 7 of 8: the total cap is what is reached
        fromB.get(0).runPendingTasks();
        assertFalse(fromB.get(0).isOpen());
        assertTrue(late.isOpen());
        assertEquals(10, limiter.connections());
    }

    @Test
    void fewDescriptorsLeftCountAsAFullServer() {
        logIn(connect(a, true));
        now.addAndGet(2_000_000_000L);
        openDescriptors.set(1000 - ConnectionLimiter.MIN_SPARE_DESCRIPTORS + 1);
        connect(b, false);
        openDescriptors.set(100);
        connect(b, false); // counted again at most once a second
        now.addAndGet(2_000_000_000L);
        connect(b, true);
    }
}
