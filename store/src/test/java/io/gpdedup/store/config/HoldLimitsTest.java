package io.gpdedup.store.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.MessageType;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.engine.StoreEngine;
import io.gpdedup.store.net.HoldingEngine;
import io.gpdedup.store.net.RawConnection;
import io.gpdedup.store.net.StoreFixture;
import io.gpdedup.store.net.StoreHandler;
import io.gpdedup.store.net.StoreRequests;
import io.gpdedup.store.reliability.ObjectIo;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What one unit's user can make the store hold is capped, each cap reached is one clear error to
 * that client (the connection goes on where the protocol allows it), and other units' users go on
 * backing up. The control case of each: just below the cap, everything is served.
 */
@Timeout(120)
class HoldLimitsTest {
    @TempDir
    Path dir;

    private static UnaryOperator<StoreConfig> holds(HoldLimits h) {
        return c -> c.withReconnectGrace(Duration.ZERO).withConnectionLimits(new ConnectionLimits(ConnectionLimits.DEFAULT_LOGIN_TIMEOUT,
                ConnectionLimits.AUTO, ConnectionLimits.AUTO, ConnectionLimits.DEFAULT_MAX_PENDING_LOGINS, h));
    }

    @Test
    void leasesAreCappedPerConnectionPerUnitAndInTotal() throws Exception {
        HoldLimits h = new HoldLimits(3, 5, 7, 0, HoldLimits.DEFAULT_MAX_QUEUED_REQUESTS);
        try (StoreFixture store = StoreFixture.start(dir, holds(h), e -> e);
                RawConnection a1 = RawConnection.loggedIn(store.port());
                RawConnection a2 = RawConnection.loggedIn(store.port())) {
            for (int i = 0; i < 3; i++) {
                assertEquals(MessageType.LEASE, begin(a1).type(), "below the per-connection cap");
            }
            assertRefused(begin(a1), "max-leases-per-connection");
            assertEquals(MessageType.LEASE, begin(a2).type());
            assertEquals(MessageType.LEASE, begin(a2).type());
            assertRefused(begin(a2), "max-leases-per-unit");
            // The refused connections go on: a PING is answered.
            a2.send(Frame.of(9, new Request.Ping()));
            assertEquals(MessageType.OK, a2.read().type());
            try (StoreClient b = store.connectB()) {
                byte[] data = ObjectIo.random(1, 300_000);
                ObjectIo.write(b, "b/0", data, 64 * 1024);
                assertArrayEquals(data, ObjectIo.read(b, "b/0"), "another unit backs up below the total cap");
                try (var s1 = b.beginBackup(); var s2 = b.beginBackup()) {
                    StoreServerException e = org.junit.jupiter.api.Assertions.assertThrows(StoreServerException.class, b::beginBackup);
                    assertTrue(e.getMessage().contains("its max-leases"), e.getMessage());
                }
            }
            String metrics = store.service.metrics().scrape();
            assertTrue(metrics.contains("gpdedup_store_limit_refusals_total{limit=\"leases\"} 3.0"), metrics);
            assertTrue(metrics.contains("gpdedup_store_limit_refusals_total{limit=\"replication-jobs\"} 0.0"), metrics);
        }
    }

    @Test
    void aLostConnectionsLeasesCountUntilClosed() throws Exception {
        HoldLimits h = new HoldLimits(3, 3, 7, 0, HoldLimits.DEFAULT_MAX_QUEUED_REQUESTS);
        try (StoreFixture store = StoreFixture.start(dir, holds(h), e -> e)) {
            try (RawConnection a = RawConnection.loggedIn(store.port())) {
                for (int i = 0; i < 3; i++) {
                    assertEquals(MessageType.LEASE, begin(a).type());
                }
            }
            // Grace 0: aborted once the store sees the close; until then they count.
            try (RawConnection a = RawConnection.loggedIn(store.port())) {
                Frame f = begin(a);
                for (int i = 0; i < 100 && f.type() != MessageType.LEASE; i++) {
                    assertRefused(f, "max-leases-per-unit");
                    Thread.sleep(50);
                    f = begin(a);
                }
                assertEquals(MessageType.LEASE, f.type(), "the closed connection's leases were given back");
            }
        }
    }

    @Test
    void appendedRecipesHoldMemoryForTheirRefsOnly() throws Exception {
        HoldLimits h = new HoldLimits(100_000, 2_000, 100_000, 0, HoldLimits.DEFAULT_MAX_QUEUED_REQUESTS);
        try (StoreFixture store = StoreFixture.start(dir, holds(h), e -> e);
                RawConnection a = RawConnection.loggedIn(store.port())) {
            ChunkRef ref = new ChunkRef(Fingerprint.compute(new byte[] {1}, 0, 1), 1);
            System.gc();
            long before = usedHeap();
            int granted = 0;
            for (int i = 0; i < 2_000; i++) {
                Frame f = begin(a);
                assertEquals(MessageType.LEASE, f.type(), "lease " + i);
                a.send(Frame.of(7, new Request.AppendRecipe(((Reply.LeaseGranted) f.message()).lease(), List.of(ref))));
                assertEquals(MessageType.OK, a.read().type());
                granted++;
            }
            assertRefused(begin(a), "max-leases-per-unit");
            System.gc();
            long perLease = (usedHeap() - before) / granted;
            // A page of 8,192 refs would be 288 KiB a lease.
            assertTrue(perLease < 64 * 1024, "heap per open lease with one ref: " + perLease + " bytes");
        }
    }

    @Test
    void frameMemoryIsCappedPerUnitAndOtherUnitsGoOn() throws Exception {
        long cap = 4L << 20;
        HoldLimits h = new HoldLimits(HoldLimits.DEFAULT_MAX_LEASES_PER_CONNECTION, HoldLimits.DEFAULT_MAX_LEASES_PER_UNIT,
                HoldLimits.DEFAULT_MAX_LEASES, cap, HoldLimits.DEFAULT_MAX_QUEUED_REQUESTS);
        try (StoreFixture store = StoreFixture.start(dir, holds(h), e -> e);
                RawConnection t1 = RawConnection.loggedIn(store.port());
                RawConnection t2 = RawConnection.loggedIn(store.port());
                RawConnection t3 = RawConnection.loggedIn(store.port())) {
            // Each announces a frame of 1 MiB and sends a few bytes of it: the store holds the whole frame meanwhile.
            for (RawConnection t : List.of(t1, t2)) {
                t.sendBytes(trickleStart(1 << 20));
            }
            String held = "gpdedup_store_frame_memory_held_bytes " + (2 << 20) + ".0";
            for (int i = 0; i < 1_000 && !store.service.metrics().scrape().contains(held); i++) {
                Thread.sleep(10);
            }
            String scraped = store.service.metrics().scrape();
            assertTrue(scraped.contains(held), () -> "two frames held for the tricklers: "
                    + scraped.lines().filter(l -> l.contains("frame_memory")).toList());
            t3.sendBytes(trickleStart(1 << 20));
            Frame refused = t3.read();
            assertEquals(ErrorCode.THROTTLED, ((Reply.Error) refused.message()).code());
            String message = ((Reply.Error) refused.message()).message();
            assertTrue(message.contains("refused for now") && message.contains("max-frame-memory-bytes"), message);
            assertTrue(t3.closedByServer());
            assertTrue(store.service.metrics().scrape().contains(held), "no frame held for the refused one");
            // Control: the two below the cap are still being read, and another unit uploads 1 MiB chunks.
            try (StoreClient b = store.connectB()) {
                byte[] data = ObjectIo.random(2, 1_500_000);
                ObjectIo.write(b, "b/0", data, 256 * 1024);
                assertArrayEquals(data, ObjectIo.read(b, "b/0"));
            }
        }
    }

    @Test
    void requestsQueuedBeyondTheCapAreRefusedAndTheRestServed() throws Exception {
        HoldLimits h = new HoldLimits(HoldLimits.DEFAULT_MAX_LEASES_PER_CONNECTION, HoldLimits.DEFAULT_MAX_LEASES_PER_UNIT,
                HoldLimits.DEFAULT_MAX_LEASES, 0, StoreHandler.MAX_IN_FLIGHT_REQUESTS);
        HoldingEngine[] holder = new HoldingEngine[1];
        try (StoreFixture store = StoreFixture.start(dir, holds(h), e -> holder[0] = new HoldingEngine(e));
                RawConnection a = RawConnection.loggedIn(store.port())) {
            long lease = ((Reply.LeaseGranted) begin(a).message()).lease();
            byte[] raw = ObjectIo.random(6, 1_000);
            Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
            a.send(Frame.of(2, new Request.PutChunks(lease, List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw)))));
            assertEquals(MessageType.OK, a.read().type());
            // A commit the engine holds, then ordered requests behind it, all in one write: the connection stops being
            // read at 65 in flight, and what that read brought beyond the cap is refused.
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            all.write(bytes(Frame.of(3, new Request.Commit(lease, "held", raw.length, Fingerprint.newDigest().digest(raw),
                    List.of(new ChunkRef(fp, raw.length)), null))));
            int asked = 300;
            for (int i = 0; i < asked; i++) {
                all.write(bytes(Frame.of(10 + i, new Request.Abort(424242))));
            }
            a.sendBytes(all.toByteArray());
            assertTrue(holder[0].commitStarted.await(30, TimeUnit.SECONDS));
            Frame first = a.read();
            assertTrue(((Reply.Error) first.message()).message().contains("max-queued-requests"), first.message().toString());
            holder[0].release();
            int refused = 1;
            int served = 0;
            boolean committed = false;
            for (int i = 1; i < asked + 1; i++) {
                Frame r = a.read();
                if (r.requestId() == 3) {
                    committed = r.type() == MessageType.OK;
                } else if (((Reply.Error) r.message()).message().contains("max-queued-requests")) {
                    refused++;
                } else {
                    served++;
                }
            }
            assertTrue(committed, "the held commit completes");
            assertTrue(served >= StoreHandler.MAX_IN_FLIGHT_REQUESTS - 1, "those within the cap are served: " + served);
            assertEquals(asked, refused + served);
        }
    }

    @Test
    void anErrorWhileServingIsInternalAndItsCauseLogged() throws Exception {
        List<LogRecord> logged = new CopyOnWriteArrayList<>();
        Logger log = Logger.getLogger(StoreRequests.class.getName());
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord r) {
                logged.add(r);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(capture);
        try (StoreFixture store = StoreFixture.start(dir, c -> c, HoldLimitsTest::outOfMemoryInStats);
                StoreClient a = store.connectA()) {
            StoreServerException e = org.junit.jupiter.api.Assertions.assertThrows(StoreServerException.class, a::stats);
            assertEquals(ErrorCode.INTERNAL, e.code(), e.getMessage());
            assertTrue(e.getMessage().contains("ran out of memory") && !e.getMessage().contains("java.lang"), e.getMessage());
            assertTrue(logged.stream().anyMatch(r -> r.getLevel() == Level.SEVERE && r.getThrown() instanceof OutOfMemoryError
                    && r.getThrown().getMessage().contains("thrown by the test")), "the cause is logged");
            // Control: the connection and the store go on.
            a.ping();
            byte[] data = ObjectIo.random(4, 100_000);
            ObjectIo.write(a, "a/0", data, 64 * 1024);
            assertArrayEquals(data, ObjectIo.read(a, "a/0"));
        } finally {
            log.removeHandler(capture);
        }
    }

    /** The real engine, whose units' STATS throw the Error a full heap throws. */
    private static StoreEngine outOfMemoryInStats(StoreEngine real) {
        InvocationHandler engine = (proxy, m, args) -> {
            Object r = invoke(real, m, args);
            if (r instanceof StorageUnit unit) {
                return Proxy.newProxyInstance(StorageUnit.class.getClassLoader(), new Class<?>[] {StorageUnit.class}, (p, um, uargs) -> {
                    if (um.getName().equals("stats")) {
                        throw new OutOfMemoryError("Java heap space (thrown by the test)");
                    }
                    return invoke(unit, um, uargs);
                });
            }
            return r;
        };
        return (StoreEngine) Proxy.newProxyInstance(StoreEngine.class.getClassLoader(), new Class<?>[] {StoreEngine.class}, engine);
    }

    private static Object invoke(Object target, java.lang.reflect.Method m, Object[] args) throws Throwable {
        try {
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static Frame begin(RawConnection c) throws Exception {
        c.send(Frame.of(1, new Request.BeginBackup()));
        return c.read();
    }

    private static void assertRefused(Frame f, String limit) {
        assertEquals(MessageType.ERROR, f.type());
        Reply.Error e = (Reply.Error) f.message();
        assertEquals(ErrorCode.BAD_REQUEST, e.code(), e.message());
        assertTrue(e.message().contains(limit + " "), e.message());
    }

    /** A length field announcing a frame of {@code length} bytes, and its first 16. */
    private static byte[] trickleStart(int length) {
        return ByteBuffer.allocate(FrameCodec.LENGTH_FIELD + 16).putInt(length).array();
    }

    private static byte[] bytes(Frame f) {
        ByteBuffer b = FrameCodec.encode(f);
        return java.util.Arrays.copyOf(b.array(), b.limit());
    }

    private static long usedHeap() {
        Runtime r = Runtime.getRuntime();
        return r.totalMemory() - r.freeMemory();
    }
}
