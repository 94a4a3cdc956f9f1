package io.gpdedup.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class FrameCodecTest {

    /** One message of every type, with contents drawn from {@code seed}. */
    static List<Message> everyMessage(long seed) {
        Random r = new Random(seed);
        List<Fingerprint> fps = fingerprints(r, r.nextInt(20));
        List<ChunkRef> refs = new ArrayList<>();
        for (Fingerprint fp : fps) {
            refs.add(new ChunkRef(fp, r.nextInt(Integer.MAX_VALUE)));
        }
        List<ChunkUpload> uploads = new ArrayList<>();
        List<StoredChunk> stored = new ArrayList<>();
        for (Fingerprint fp : fps) {
            byte[] payload = bytes(r, r.nextInt(300));
            Codec codec = Codec.values()[r.nextInt(Codec.values().length)];
            uploads.add(new ChunkUpload(fp, codec, r.nextInt(1 << 20), payload));
            stored.add(new StoredChunk(codec, r.nextInt(1 << 20), payload));
        }
        boolean[] bits = new boolean[r.nextInt(40)];
        for (int i = 0; i < bits.length; i++) {
            bits[i] = r.nextBoolean();
        }
        long lease = r.nextLong() & Long.MAX_VALUE;
        String name = "db/backups/2026112" + r.nextInt(10) + "/ü€😀/" + r.nextInt();
        return List.of(
                new Request.Hello(List.of(1, 2, 65535)),
                new Request.Auth("unit-" + r.nextInt(), "user", "päss wörd"),
                new Request.BeginBackup(),
                new Request.Missing(lease, fps),
                new Request.PutChunks(lease, uploads),
                new Request.AppendRecipe(lease, refs),
                new Request.Commit(lease, name, r.nextLong() & Long.MAX_VALUE, bytes(r, 32), refs),
                new Request.Commit(lease, name, r.nextLong() & Long.MAX_VALUE, bytes(r, 32), refs, bytes(r, 32)),
                new Request.Commit(lease, name, r.nextLong() & Long.MAX_VALUE, null, refs, bytes(r, 32)),
                new Request.Abort(lease),
                new Request.GetRecipe(name),
                new Request.GetChunks(fps),
                new Request.ListObjects(""),
                new Request.DeleteObjects(name),
                new Request.DeleteObject(name),
                new Request.DeleteObjects(name, true),
                new Request.DeleteObject(name, true),
                new Request.GetStats(),
                new Request.Verify(),
                new Request.CollectGarbage(),
                new Request.Ping(),
                new Request.Replicate(name + "/", new ReplicaTarget("dr-" + r.nextInt(), 1 + r.nextInt(65535), "unit", "üser", "dr/" + name),
                        "päss wörd"),
                new Request.ReplicationStatus(),
                new Request.Sync(),
                new Request.Sync(true),
                new Request.GetSettings(),
                new Reply.Ok(),
                new Reply.HelloOk(1, FrameCodec.DEFAULT_MAX_FRAME, 65536),
                new Reply.AuthOk(),
                new Reply.LeaseGranted(lease),
                new Reply.MissingBitmap(bits),
                new Reply.RecipePart(r.nextLong() & Long.MAX_VALUE, bytes(r, 32), refs),
                new Reply.RecipePart(r.nextLong() & Long.MAX_VALUE, bytes(r, 32), refs, bytes(r, 32)),
                new Reply.RecipePart(r.nextLong() & Long.MAX_VALUE, null, refs, bytes(r, 32)),
                new Reply.NotFound(),
                new Reply.ChunksPart(stored),
                new Reply.ObjectsPart(List.of(new ObjectInfo(name, 12345, 1700000000000L), new ObjectInfo("", 0, 0))),
                new Reply.ObjectsPart(List.of(new ObjectInfo(name, 12345, 1700000000000L),
                        new ObjectInfo("b", 1, 2, new RetentionLock(RetentionLock.Mode.COMPLIANCE, 1800000000000L)),
                        new ObjectInfo("c", 3, 4, new RetentionLock(RetentionLock.Mode.GOVERNANCE, 1900000000000L))), true),
                new Reply.ObjectsPart(List.of(new ObjectInfo(name, 1, 2)), true),
                new Reply.Count(r.nextInt(1000)),
                new Reply.Stats(new UnitStats(1, 2, 3, 4, 5, 6)),
                new Reply.VerifyResult(new VerifyReport(7, 8, 9, List.of("a", "b"), List.of("problem ü"))),
                new Reply.GcResult(new GcReport(10, 11, 12, 13)),
                new Reply.Settings(0xffffffffL - r.nextInt(1000)),
                new Reply.Settings(r.nextInt(1000), true),
                new Reply.ReplicationQueued(lease),
                new Reply.ReplicationJobsPart(List.of(
                        new ReplicationJobStatus(lease, name + "/", new ReplicaTarget("::1", 7411, "u", "v", "dr/x/"),
                                ReplicationJobStatus.State.values()[r.nextInt(4)], r.nextInt(100), 3, 4, 5, 6, 7, 0, "remote down: ü"),
                        new ReplicationJobStatus(1, "", new ReplicaTarget("", 1, "", "", ""), ReplicationJobStatus.State.DONE,
                                0, 0, 0, 0, 0, 0, 0, ""))),
                new Reply.Error(ErrorCode.STORE_ERROR, "something failed: ü"));
    }

    static Stream<Long> seeds() {
        return Stream.of(1L, 2L, 3L, 42L, 20261123L);
    }

    @Test
    void theSplittableTypesAreExactlyTheListReplies() {
        for (Message m : everyMessage(1)) {
            assertEquals(m instanceof Reply.ListPart, m.type().splittable(), m.type().name());
        }
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void everyMessageSurvivesTheRoundTrip(long seed) {
        List<Message> messages = everyMessage(seed);
        assertEquals(MessageType.values().length, messages.stream().map(Message::type).distinct().count(), "one of each type");
        int id = (int) seed * 7919;
        for (Message m : messages) {
            Frame f = new Frame(id, m.type().splittable() && seed % 2 == 0, m);
            ByteBuffer wire = FrameCodec.encode(f);
            assertEquals(FrameCodec.LENGTH_FIELD + FrameCodec.frameLength(f), wire.remaining());
            assertEquals(FrameCodec.frameLength(f), wire.getInt(0));
            Frame back = FrameCodec.decode(wire.duplicate().position(FrameCodec.LENGTH_FIELD).slice());
            assertEquals(f.requestId(), back.requestId());
            assertEquals(f.more(), back.more());
            // Records holding arrays compare by identity: compare the re-encoded bytes instead.
            assertEquals(wire, FrameCodec.encode(back), m.type().toString());
            assertEquals(m.type(), back.type());
        }
    }

    @Test
    void pingAndOkAreTheBytesTheDocumentShows() {
        assertEquals("00000006100000000007", hex(FrameCodec.encode(Frame.of(7, new Request.Ping()))));
        assertEquals("00000006800000000007", hex(FrameCodec.encode(Frame.of(7, new Reply.Ok()))));
    }

    @Test
    void missingBitmapIsLeastSignificantBitFirst() {
        boolean[] bits = {true, false, false, false, false, false, false, false, false, true};
        ByteBuffer wire = FrameCodec.encode(Frame.of(1, new Reply.MissingBitmap(bits)));
        // length 12, type 0x84, flags, id 1, count 10, bytes 0x01 0x02
        assertEquals("0000000c" + "84" + "00" + "00000001" + "0000000a" + "0102", hex(wire));
        Reply.MissingBitmap back = (Reply.MissingBitmap) decode(wire).message();
        assertArrayEquals(bits, back.missing());
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void everyTruncationIsMalformed(long seed) {
        for (Message m : everyMessage(seed)) {
            byte[] body = frameBytes(Frame.of(5, m));
            for (int cut = 0; cut < body.length; cut++) {
                byte[] shorter = Arrays.copyOf(body, cut);
                Message older = olderForm(m);
                if (older != null && cut == frameBytes(Frame.of(5, older)).length) {
                    // Fields added at the end in a later version are optional: cut off whole, the frame is the older form.
                    assertEquals(ByteBuffer.wrap(frameBytes(Frame.of(5, older))), ByteBuffer.wrap(shorter));
                    continue;
                }
                StoreProtocolException e = assertThrows(StoreProtocolException.class, () -> FrameCodec.decode(ByteBuffer.wrap(shorter)),
                        m.type() + " cut to " + cut + " bytes");
                assertEquals(ErrorCode.MALFORMED_FRAME, e.code());
            }
        }
    }

    /** The message as an older peer sends it, without the fields a later version added at its end; null if it has none. */
    private static Message olderForm(Message m) {
        if (m instanceof Request.DeleteObjects d && d.bypassGovernance()) {
            return new Request.DeleteObjects(d.prefix());
        }
        if (m instanceof Request.DeleteObject d && d.bypassGovernance()) {
            return new Request.DeleteObject(d.objectName());
        }
        if (m instanceof Request.Sync sync && sync.uploaded()) {
            return new Request.Sync();
        }
        if (m instanceof Reply.Settings settings && settings.syncSpoolOnly()) {
            return new Reply.Settings(settings.idleTimeoutSeconds());
        }
        if (m instanceof Reply.ObjectsPart p && p.withLocks()) {
            return new Reply.ObjectsPart(p.objects().stream().map(o -> new ObjectInfo(o.name(), o.length(), o.committedAtMillis())).toList());
        }
        return withoutChunkListSha256(m);
    }

    /** The message as a version 3 peer sends it, or null if it has no chunk list SHA-256. */
    private static Message withoutChunkListSha256(Message m) {
        if (m instanceof Request.Commit c && c.chunkListSha256() != null) {
            return new Request.Commit(c.lease(), c.objectName(), c.totalLength(), c.streamSha256(), c.refs());
        }
        if (m instanceof Reply.RecipePart p && p.chunkListSha256() != null) {
            return new Reply.RecipePart(p.totalLength(), p.streamSha256(), p.refs());
        }
        return null;
    }

    @ParameterizedTest
    @MethodSource("seeds")
    void trailingBytesAreMalformed(long seed) {
        for (Message m : everyMessage(seed)) {
            byte[] longer = Arrays.copyOf(frameBytes(Frame.of(5, m)), frameBytes(Frame.of(5, m)).length + 1);
            assertEquals(ErrorCode.MALFORMED_FRAME,
                    assertThrows(StoreProtocolException.class, () -> FrameCodec.decode(ByteBuffer.wrap(longer))).code(), m.type().toString());
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0x00, 0x11, 0x7F, 0x8D, 0xFE})
    void unknownTypesAreMalformed(int type) {
        byte[] body = {(byte) type, 0, 0, 0, 0, 1};
        assertEquals(ErrorCode.MALFORMED_FRAME, assertThrows(StoreProtocolException.class, () -> FrameCodec.decode(ByteBuffer.wrap(body))).code());
    }

    @Test
    void reservedFlagsAndMisplacedMoreAreMalformed() {
        byte[] ping = frameBytes(Frame.of(1, new Request.Ping()));
        ping[1] = 2;
        assertThrows(StoreProtocolException.class, () -> FrameCodec.decode(ByteBuffer.wrap(ping)));
        ping[1] = 1;
        assertThrows(StoreProtocolException.class, () -> FrameCodec.decode(ByteBuffer.wrap(ping)), "MORE on PING");
        assertThrows(IllegalArgumentException.class, () -> new Frame(1, true, new Reply.Ok()));
        byte[] objects = frameBytes(new Frame(1, true, new Reply.ObjectsPart(List.of())));
        assertTrue(FrameCodec.decode(ByteBuffer.wrap(objects)).more());
    }

    @Test
    void aForgedCountAllocatesNothingAndIsMalformed() {
        // GET_CHUNKS claiming 2^31-1 fingerprints in a 10-byte frame.
        byte[] body = {0x0A, 0, 0, 0, 0, 1, 0x7F, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
        StoreProtocolException e = assertThrows(StoreProtocolException.class, () -> FrameCodec.decode(ByteBuffer.wrap(body)));
        assertTrue(e.getMessage().contains("does not fit"), e.getMessage());
    }

    @Test
    void badUtf8BadCodecBadMagicAndStrayBitmapBitsAreMalformed() {
        byte[] list = {0x0B, 0, 0, 0, 0, 1, 0, 2, (byte) 0xC3, (byte) 0x28};
        assertTrue(assertThrows(StoreProtocolException.class, () -> FrameCodec.decode(ByteBuffer.wrap(list))).getMessage().contains("UTF-8"));

        byte[] put = frameBytes(Frame.of(1, new Request.PutChunks(1, List.of(new ChunkUpload(fp(1), Codec.ZSTD, 3, new byte[3])))));
        put[FrameCodec.HEADER + 8 + 4 + Fingerprint.LENGTH] = 9;
        assertTrue(assertThrows(StoreProtocolException.class, () -> FrameCodec.decode(ByteBuffer.wrap(put))).getMessage().contains("codec"));

        byte[] hello = frameBytes(Frame.of(1, new Request.Hello(List.of(1))));
        hello[FrameCodec.HEADER] = 'X';
        assertTrue(assertThrows(StoreProtocolException.class, () -> FrameCodec.decode(ByteBuffer.wrap(hello))).getMessage().contains("magic"));

        byte[] bitmap = frameBytes(Frame.of(1, new Reply.MissingBitmap(new boolean[3])));
        bitmap[bitmap.length - 1] = (byte) 0x80;
        assertThrows(StoreProtocolException.class, () -> FrameCodec.decode(ByteBuffer.wrap(bitmap)));

        byte[] negative = frameBytes(Frame.of(1, new Reply.Count(5)));
        negative[FrameCodec.HEADER] = (byte) 0x80;
        assertThrows(StoreProtocolException.class, () -> FrameCodec.decode(ByteBuffer.wrap(negative)));
    }

    @Test
    void anAuthNeverShowsItsPassword() {
        assertFalse(new Request.Auth("u", "someone", "hunter2").toString().contains("hunter2"));
    }

    @Test
    void tooLongStringsAreRefusedWhenEncoding() {
        String longName = "x".repeat(70_000);
        assertThrows(IllegalArgumentException.class, () -> FrameCodec.encode(Frame.of(1, new Request.GetRecipe(longName))));
    }

    @Test
    void syncAndSettingsFlagsOtherThanTheKnownOneAreMalformed() {
        for (int flags : new int[] {0, 2, 3, 0x80}) {
            byte[] sync = frameBytes(Frame.of(3, new Request.Sync()));
            byte[] withFlags = Arrays.copyOf(sync, sync.length + 1);
            withFlags[sync.length] = (byte) flags;
            assertEquals(ErrorCode.MALFORMED_FRAME, assertThrows(StoreProtocolException.class,
                    () -> FrameCodec.decode(ByteBuffer.wrap(withFlags))).code(), "sync flags " + flags);
            byte[] settings = frameBytes(Frame.of(3, new Reply.Settings(60)));
            byte[] settingsFlags = Arrays.copyOf(settings, settings.length + 1);
            settingsFlags[settings.length] = (byte) flags;
            assertEquals(ErrorCode.MALFORMED_FRAME, assertThrows(StoreProtocolException.class,
                    () -> FrameCodec.decode(ByteBuffer.wrap(settingsFlags))).code(), "settings flags " + flags);
        }
        byte[] sync = frameBytes(Frame.of(3, new Request.Sync()));
        byte[] uploaded = Arrays.copyOf(sync, sync.length + 1);
        uploaded[sync.length] = 1;
        assertTrue(((Request.Sync) FrameCodec.decode(ByteBuffer.wrap(uploaded)).message()).uploaded());
    }

    @Test
    void versionChoiceIsTheHighestCommonOne() {
        assertEquals(7, ProtocolVersions.choose(List.of(1, 2, 3, 4, 5, 6, 7, 8)).getAsInt());
        assertEquals(6, ProtocolVersions.choose(List.of(1, 2, 3, 4, 5, 6, 8)).getAsInt());
        assertEquals(5, ProtocolVersions.choose(List.of(1, 2, 3, 4, 5, 8)).getAsInt());
        assertEquals(4, ProtocolVersions.choose(List.of(1, 2, 3, 4, 8)).getAsInt());
        assertEquals(3, ProtocolVersions.choose(List.of(1, 2, 3, 8)).getAsInt());
        assertEquals(2, ProtocolVersions.choose(List.of(1, 2, 8)).getAsInt());
        assertEquals(1, ProtocolVersions.choose(List.of(1, 8)).getAsInt());
        assertTrue(ProtocolVersions.choose(List.of(8, 9)).isEmpty());
    }

    private static Frame decode(ByteBuffer wire) {
        return FrameCodec.decode(wire.duplicate().position(FrameCodec.LENGTH_FIELD).slice());
    }

    private static byte[] frameBytes(Frame f) {
        ByteBuffer wire = FrameCodec.encode(f);
        return Arrays.copyOfRange(wire.array(), FrameCodec.LENGTH_FIELD, wire.limit());
    }

    private static String hex(ByteBuffer b) {
        return HexFormat.of().formatHex(b.array(), b.position(), b.limit());
    }

    private static List<Fingerprint> fingerprints(Random r, int n) {
        List<Fingerprint> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(Fingerprint.of(bytes(r, 32)));
        }
        return out;
    }

    static Fingerprint fp(int i) {
        byte[] b = new byte[32];
        b[0] = (byte) i;
        b[31] = (byte) (i >> 8);
        return Fingerprint.of(b);
    }

    private static byte[] bytes(Random r, int n) {
        byte[] b = new byte[n];
        r.nextBytes(b);
        return b;
    }
}
