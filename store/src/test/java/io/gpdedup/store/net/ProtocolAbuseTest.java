package io.gpdedup.store.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.MessageType;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** What a broken or hostile peer gets: one ERROR, a closed connection, and no harm to the others. */
class ProtocolAbuseTest {
    @TempDir
    Path dir;
    private StoreFixture store;
    private StoreClient bystander;

    @BeforeEach
    void start() {
        store = StoreFixture.start(dir, c -> c.withLimits(1 << 20, 1024), e -> e);
        bystander = store.connectA();
    }

    @AfterEach
    void stop() {
        // Whatever happened on the other connections, this one still works.
        try {
            bystander.ping();
            assertEquals(0, bystander.list("").size());
            assertTrue(bystander.isOpen());
        } finally {
            bystander.close();
            store.close();
        }
    }

    private static void assertFatal(RawConnection c, ErrorCode code) throws Exception {
        Frame f = c.read();
        assertEquals(0, f.requestId(), "fatal errors carry request id 0");
        Reply.Error e = (Reply.Error) f.message();
        assertEquals(code, e.code(), e.message());
        assertTrue(c.closedByServer(), "the server closes after a fatal error");
    }

    @Test
    void anOversizedFrameBeforeLoginIsRefused() throws Exception {
        try (RawConnection c = new RawConnection(store.port())) {
            c.sendBytes(new byte[] {0x00, 0x00, 0x20, 0x00, 0x01});
            assertFatal(c, ErrorCode.FRAME_TOO_LARGE);
        }
    }

    @Test
    void anOversizedFrameAfterLoginIsRefused() throws Exception {
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            c.sendBytes(ByteBuffer.allocate(4).putInt((1 << 20) + 1).array());
            assertFatal(c, ErrorCode.FRAME_TOO_LARGE);
        }
    }

    @Test
    void anHttpRequestIsRefused() throws Exception {
        try (RawConnection c = new RawConnection(store.port())) {
            c.sendBytes("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertFatal(c, ErrorCode.FRAME_TOO_LARGE);
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void randomBytesInAFrameAreMalformed(long seed) throws Exception {
        Random r = new Random(seed);
        byte[] body = new byte[6 + r.nextInt(100)];
        r.nextBytes(body);
        body[0] = (byte) 0x55; // no such type
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            c.sendBytes(ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array());
            assertFatal(c, ErrorCode.MALFORMED_FRAME);
        }
    }

    @Test
    void aFrameShorterThanItsHeaderIsMalformed() throws Exception {
        try (RawConnection c = new RawConnection(store.port())) {
            c.sendBytes(new byte[] {0, 0, 0, 2, 1, 0});
            assertFatal(c, ErrorCode.MALFORMED_FRAME);
        }
    }

    @Test
    void aRequestBeforeHelloOrAuthIsAViolation() throws Exception {
        try (RawConnection c = new RawConnection(store.port())) {
            c.send(Frame.of(1, new Request.Ping()));
            assertFatal(c, ErrorCode.PROTOCOL_VIOLATION);
        }
        try (RawConnection c = new RawConnection(store.port())) {
            c.send(Frame.of(1, new Request.Hello(ProtocolVersions.SUPPORTED)));
            assertTrue(c.read().message() instanceof Reply.HelloOk);
            c.send(Frame.of(2, new Request.ListObjects("")));
            assertFatal(c, ErrorCode.PROTOCOL_VIOLATION);
        }
    }

    @Test
    void aFrameBegunBeforeAuthOkIsAViolationThoughItEndsAfter() throws Exception {
        try (RawConnection c = new RawConnection(store.port())) {
            c.send(Frame.of(1, new Request.Hello(ProtocolVersions.SUPPORTED)));
            assertTrue(c.read().message() instanceof Reply.HelloOk);
            ByteBuffer auth = FrameCodec.encode(Frame.of(2, new Request.Auth(StoreFixture.UNIT_A, StoreFixture.USER_A, StoreFixture.PASSWORD_A)));
            ByteBuffer ping = FrameCodec.encode(Frame.of(3, new Request.Ping()));
            // One write: the server has the PING's first half before it can answer the AUTH.
            c.sendBytes(ByteBuffer.allocate(auth.limit() + 5).put(auth).put(ping.array(), 0, 5).array());
            assertFatal(c, ErrorCode.PROTOCOL_VIOLATION);
        }
    }

    @Test
    void aReplySentByAClientIsAViolation() throws Exception {
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            c.send(Frame.of(3, new Reply.Ok()));
            assertFatal(c, ErrorCode.PROTOCOL_VIOLATION);
        }
    }

    @Test
    void aVersionTwoRequestOnAVersionOneConnectionIsUnknown() throws Exception {
        try (RawConnection c = new RawConnection(store.port())) {
            c.send(Frame.of(1, new Request.Hello(List.of(ProtocolVersions.V1))));
            assertEquals(ProtocolVersions.V1, ((Reply.HelloOk) c.read().message()).version());
            c.send(Frame.of(2, new Request.Auth(StoreFixture.UNIT_A, StoreFixture.USER_A, StoreFixture.PASSWORD_A)));
            assertTrue(c.read().message() instanceof Reply.AuthOk);
            c.send(Frame.of(3, new Request.ReplicationStatus()));
            assertFatal(c, ErrorCode.MALFORMED_FRAME);
        }
    }

    @Test
    void noCommonVersionIsRefused() throws Exception {
        try (RawConnection c = new RawConnection(store.port())) {
            c.send(Frame.of(1, new Request.Hello(List.of(99, 100))));
            assertFatal(c, ErrorCode.UNSUPPORTED_VERSION);
        }
    }

    @Test
    void badRequestsAreAnsweredAndTheConnectionStays() throws Exception {
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            c.send(Frame.of(10, new Request.Missing(999_999, List.of())));
            Frame f = c.read();
            assertEquals(10, f.requestId());
            assertEquals(ErrorCode.BAD_REQUEST, ((Reply.Error) f.message()).code());

            c.send(Frame.of(11, new Request.BeginBackup()));
            long lease = ((Reply.LeaseGranted) c.read().message()).lease();
            // Refs that do not add up to the total length.
            Fingerprint fp = Fingerprint.parse("11".repeat(32));
            c.send(Frame.of(12, new Request.Commit(lease, "x", 10, Fingerprint.parse("5a".repeat(32)).toBytes(), List.of(new ChunkRef(fp, 3)))));
            Reply.Error e = (Reply.Error) c.read().message();
            assertEquals(ErrorCode.BAD_REQUEST, e.code());
            assertTrue(e.message().contains("add up"), e.message());

            c.send(Frame.of(13, new Request.GetChunks(java.util.Collections.nCopies(1025, fp))));
            Reply.Error tooMany = (Reply.Error) c.read().message();
            assertEquals(ErrorCode.BAD_REQUEST, tooMany.code());
            assertTrue(tooMany.message().contains("max batch"), tooMany.message());

            c.send(Frame.of(14, new Request.Ping()));
            Frame pong = c.read();
            assertEquals(14, pong.requestId());
            assertTrue(pong.message() instanceof Reply.Ok);
        }
    }

    @Test
    void pipelinedRepliesCarryTheirRequestIds() throws Exception {
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            c.send(Frame.of(100, new Request.BeginBackup()));
            long lease = ((Reply.LeaseGranted) c.read().message()).lease();
            Fingerprint fp = Fingerprint.compute(new byte[0], 0, 0);
            for (int id = 200; id < 264; id++) {
                c.send(Frame.of(id, new Request.Missing(lease, List.of(fp))));
            }
            boolean[] seen = new boolean[64];
            for (int i = 0; i < 64; i++) {
                Frame f = c.read();
                assertArrayEquals(new boolean[] {true}, ((Reply.MissingBitmap) f.message()).missing());
                seen[f.requestId() - 200] = true;
            }
            for (boolean s : seen) {
                assertTrue(s);
            }
        }
    }

    @Test
    void framesArrivingInPiecesAreServedWhole() throws Exception {
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            c.send(Frame.of(100, new Request.BeginBackup()));
            long lease = ((Reply.LeaseGranted) c.read().message()).lease();
            Random r = new Random(7);
            List<byte[]> raws = new ArrayList<>();
            List<Fingerprint> fps = new ArrayList<>();
            List<ChunkUpload> uploads = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                byte[] raw = new byte[300 + 200 * i];
                r.nextBytes(raw);
                Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
                raws.add(raw);
                fps.add(fp);
                uploads.add(new ChunkUpload(fp, Codec.NONE, raw.length, raw));
            }
            c.sendInPieces(Frame.of(101, new Request.PutChunks(lease, uploads)), Frame.of(102, new Request.Missing(lease, fps)));
            Frame put = c.read();
            assertEquals(101, put.requestId());
            assertEquals(MessageType.OK, put.type());
            Frame missing = c.read();
            assertEquals(102, missing.requestId());
            assertArrayEquals(new boolean[3], ((Reply.MissingBitmap) missing.message()).missing(), "every chunk was stored");
            // The stored payloads are the bytes sent: payloads kept as views of their frame stayed intact.
            c.send(Frame.of(103, new Request.GetChunks(fps)));
            List<StoredChunk> back = ((Reply.ChunksPart) c.read().message()).chunks();
            for (int i = 0; i < raws.size(); i++) {
                assertArrayEquals(raws.get(i), back.get(i).payload(), "chunk " + i);
            }
            c.send(Frame.of(104, new Request.Abort(lease)));
            assertEquals(MessageType.OK, c.read().type());
        }
    }

    @Test
    void anIdleUnauthenticatedConnectionIsClosed(@TempDir Path other) throws Exception {
        try (StoreFixture quick = StoreFixture.start(other, c -> c.withIdleTimeout(Duration.ofMillis(300)), e -> e);
                RawConnection c = new RawConnection(quick.port())) {
            assertTrue(c.closedByServer());
        }
    }
}
