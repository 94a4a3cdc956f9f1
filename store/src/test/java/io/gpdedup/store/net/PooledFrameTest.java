package io.gpdedup.store.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.MessageType;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Uploads are read, and replies written, in pooled memory outside the heap: every way an upload can
 * end (stored, refused, cut off, malformed, abandoned with its connection) and every reply, read or
 * not, must give that memory back, or a store in service would run out of it.
 */
class PooledFrameTest {
    private static final Random RANDOM = new Random(11);

    @TempDir
    Path dir;
    private StoreFixture store;

    @BeforeEach
    void start() {
        store = StoreFixture.start(dir);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    @Test
    void aStoredUploadGivesItsFrameBack() throws Exception {
        long taken = FramePool.taken();
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            long lease = begin(c);
            c.send(Frame.of(10, put(lease, 3, 100_000)));
            assertEquals(MessageType.OK, c.read().type());
        }
        assertTrue(FramePool.taken() > taken, "frames were taken from the pool");
        assertAllGivenBack();
    }

    @Test
    void aRefusedUploadGivesItsFrameBack() throws Exception {
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            c.send(Frame.of(10, put(424242, 2, 50_000)));
            Frame reply = c.read();
            assertEquals(MessageType.ERROR, reply.type(), "a lease nobody was granted");
            assertAllGivenBack();
        }
    }

    @Test
    void anUploadCutOffByItsClientGivesItsFrameBack() throws Exception {
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            long lease = begin(c);
            byte[] bytes = encoded(Frame.of(10, put(lease, 4, 200_000)));
            c.sendBytes(Arrays.copyOf(bytes, bytes.length / 2));
            // Left half sent once the store has taken a frame for it.
            waitUntil(() -> FramePool.inUse() > 0, "the half frame is being read");
        }
        assertAllGivenBack();
    }

    @Test
    void aMalformedUploadGivesItsFrameBack() throws Exception {
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            long lease = begin(c);
            byte[] bytes = encoded(Frame.of(10, put(lease, 2, 30_000)));
            // One byte short, length field included: the entries run past the frame's end.
            ByteBuffer.wrap(bytes).putInt(bytes.length - FrameCodec.LENGTH_FIELD - 1);
            c.sendBytes(Arrays.copyOf(bytes, bytes.length - 1));
            assertEquals(MessageType.ERROR, c.read().type());
            assertTrue(c.closedByServer());
        }
        assertAllGivenBack();
    }

    @Test
    void uploadsLeftBehindByAClosedConnectionGiveTheirFramesBack() throws Exception {
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            long lease = begin(c);
            for (int i = 0; i < 24; i++) {
                c.send(Frame.of(100 + i, put(lease, 4, 64 * 1024)));
            }
            // Closed without reading a reply: some are served, some find their session gone.
        }
        assertAllGivenBack();
    }

    @Test
    void repliesGiveTheirFramesBackWhetherReadOrNot() throws Exception {
        List<Fingerprint> stored = new ArrayList<>();
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            long lease = begin(c);
            Request.PutChunks put = put(lease, 8, 200_000);
            put.chunks().forEach(u -> stored.add(u.fingerprint()));
            c.send(Frame.of(10, put));
            assertEquals(MessageType.OK, c.read().type());
            c.send(Frame.of(11, new Request.GetChunks(stored)));
            int got = 0;
            Frame part;
            do {
                part = c.read();
                got += ((Reply.ChunksPart) part.message()).chunks().size();
            } while (part.more());
            assertEquals(stored.size(), got);
            long taken = FramePool.taken();
            // Asked again and again, then gone without reading: replies queued for a closed socket.
            for (int i = 0; i < 16; i++) {
                c.send(Frame.of(20 + i, new Request.GetChunks(stored)));
            }
            waitUntil(() -> FramePool.taken() > taken, "replies are being written");
        }
        assertAllGivenBack();
    }

    @Test
    void aClientThatAsksAndNeverReadsHoldsNoMoreRepliesThanMayBeInFlight() throws Exception {
        List<Fingerprint> stored = new ArrayList<>();
        int asked = 3 * StoreHandler.MAX_IN_FLIGHT_REQUESTS;
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            long lease = begin(c);
            Request.PutChunks put = put(lease, 2, 512 * 1024);
            put.chunks().forEach(u -> stored.add(u.fingerprint()));
            c.send(Frame.of(10, put));
            assertEquals(MessageType.OK, c.read().type());
            // A megabyte answer each, asked for far more often than may be in flight, none read yet.
            Thread asking = new Thread(() -> {
                try {
                    for (int i = 0; i < asked; i++) {
                        c.send(Frame.of(100 + i, new Request.GetChunks(stored)));
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            asking.setDaemon(true);
            asking.start();
            // The replies of the requests in flight when reading paused (one past the limit), and the frame being read.
            int most = StoreHandler.MAX_IN_FLIGHT_REQUESTS + 2;
            waitUntil(() -> FramePool.inUse() >= StoreHandler.MAX_IN_FLIGHT_REQUESTS / 2, "replies wait for the client");
            long until = System.nanoTime() + 2_000_000_000L;
            while (System.nanoTime() < until) {
                long held = FramePool.inUse();
                assertTrue(held <= most, () -> held + " replies held for a client that reads none; at most " + most + " may be");
                Thread.sleep(10);
            }
            // Once the client reads, the store carries on with the rest.
            for (int i = 0; i < asked; i++) {
                Frame reply = c.read();
                assertEquals(stored.size(), ((Reply.ChunksPart) reply.message()).chunks().size(), "reply " + i);
            }
            asking.join();
        }
        assertAllGivenBack();
    }

    private static long begin(RawConnection c) throws Exception {
        c.send(Frame.of(1, new Request.BeginBackup()));
        return ((Reply.LeaseGranted) c.read().message()).lease();
    }

    private static Request.PutChunks put(long lease, int chunks, int size) {
        List<ChunkUpload> uploads = new ArrayList<>();
        for (int i = 0; i < chunks; i++) {
            byte[] raw = new byte[size];
            RANDOM.nextBytes(raw);
            uploads.add(new ChunkUpload(Fingerprint.compute(raw, 0, raw.length), Codec.NONE, raw.length, raw));
        }
        return new Request.PutChunks(lease, uploads);
    }

    private static byte[] encoded(Frame frame) {
        ByteBuffer b = FrameCodec.encode(frame);
        return Arrays.copyOf(b.array(), b.limit());
    }

    private static void assertAllGivenBack() throws InterruptedException {
        waitUntil(() -> FramePool.inUse() == 0, "every pooled frame is released");
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within 10 s: " + what + " (pooled frames in use: " + FramePool.inUse() + ")");
            }
            Thread.sleep(10);
        }
    }
}
