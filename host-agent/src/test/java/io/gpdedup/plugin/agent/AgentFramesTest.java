package io.gpdedup.plugin.agent;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Frames and CALL payloads on the wire: round trips, limits, truncation. */
class AgentFramesTest {
    /** A channel over a byte array that hands out at most {@code step} bytes per read, like a socket. */
    private static ReadableByteChannel trickle(byte[] bytes, int step) {
        ReadableByteChannel in = Channels.newChannel(new ByteArrayInputStream(bytes));
        return new ReadableByteChannel() {
            @Override
            public int read(ByteBuffer dst) throws IOException {
                ByteBuffer limited = dst.slice();
                limited.limit(Math.min(limited.remaining(), step));
                int n = in.read(limited);
                if (n > 0) {
                    dst.position(dst.position() + n);
                }
                return n;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {
            }
        };
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5})
    void framesRoundTripWhateverTheReadSizes(long seed) throws IOException {
        Random r = new Random(seed);
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        FrameWriter w = new FrameWriter(GatheringSink.of(wire));
        List<byte[]> sent = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            byte[] b = new byte[r.nextInt(3) == 0 ? 0 : r.nextInt(200_000)];
            r.nextBytes(b);
            sent.add(b);
            w.write(FrameType.STDOUT, b);
        }
        w.writeInt(FrameType.EXIT, 3);
        FrameReader reader = new FrameReader(trickle(wire.toByteArray(), 1 + r.nextInt(7000)), 1 + r.nextInt(70_000));
        for (byte[] expected : sent) {
            assertEquals(FrameType.STDOUT, reader.next());
            assertArrayEquals(expected, reader.payload());
        }
        assertEquals(FrameType.EXIT, reader.next());
        assertEquals(3, ByteBuffer.wrap(reader.payload()).getInt());
        assertNull(reader.next(), "clean end between frames");
    }

    @Test
    void skipsUnreadPayloadOnNext() throws IOException {
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        FrameWriter w = new FrameWriter(GatheringSink.of(wire));
        w.write(FrameType.STDIN, new byte[100_000]);
        w.write(FrameType.STDIN_EOF);
        FrameReader reader = new FrameReader(trickle(wire.toByteArray(), 4096), 1024);
        assertEquals(FrameType.STDIN, reader.next());
        assertEquals(10, reader.read(new byte[10], 0, 10));
        assertEquals(FrameType.STDIN_EOF, reader.next());
    }

    @Test
    void rejectsOversizedAndUnknownFrames() {
        byte[] tooLong = ByteBuffer.allocate(5).put(FrameType.EXIT.code).putInt(5).array();
        ProtocolException e = assertThrows(ProtocolException.class, () -> new FrameReader(trickle(tooLong, 5), 64).next());
        assertTrue(e.getMessage().contains("exceeds its limit of 4"), e.getMessage());
        byte[] huge = ByteBuffer.allocate(5).put(FrameType.STDIN.code).putInt(-1).array();
        assertThrows(ProtocolException.class, () -> new FrameReader(trickle(huge, 5), 64).next());
        byte[] unknown = ByteBuffer.allocate(5).put((byte) 0x7f).putInt(0).array();
        e = assertThrows(ProtocolException.class, () -> new FrameReader(trickle(unknown, 5), 64).next());
        assertTrue(e.getMessage().contains("unknown frame type 0x7f"), e.getMessage());
    }

    @Test
    void aConnectionEndingInsideAFrameIsNotACleanEnd() throws IOException {
        byte[] partialHeader = {FrameType.STDIN.code, 0, 0};
        assertThrows(EOFException.class, () -> new FrameReader(trickle(partialHeader, 2), 64).next());
        byte[] partialPayload = ByteBuffer.allocate(5 + 3).put(FrameType.STDIN.code).putInt(10).put(new byte[3]).array();
        FrameReader reader = new FrameReader(trickle(partialPayload, 8), 64);
        assertEquals(FrameType.STDIN, reader.next());
        assertThrows(EOFException.class, reader::payload);
    }

    @ParameterizedTest
    @ValueSource(longs = {11, 12, 13})
    void callRequestsRoundTrip(long seed) throws IOException {
        Random r = new Random(seed);
        List<String> args = new ArrayList<>();
        for (int i = 0, n = r.nextInt(6); i < n; i++) {
            char[] c = new char[r.nextInt(40)];
            for (int j = 0; j < c.length; j++) {
                c[j] = (char) (' ' + r.nextInt(95));
            }
            args.add(new String(c));
        }
        Path cwd = Paths.get("/tmp/dir " + seed);
        CallRequest call = new CallRequest(CallRequest.VERSION, 4_000_000_000L, cwd, args);
        CallRequest back = CallRequest.decode(call.encode());
        assertEquals(call, back);
        assertArrayEquals(args.toArray(), back.argv());
    }

    @Test
    void rejectsMalformedCallPayloads() {
        byte[] good = new CallRequest(CallRequest.VERSION, 7, Paths.get("/w"), List.of("backup_data", "/c", "/k")).encode();
        for (int cut = 2; cut < good.length; cut += 3) {
            byte[] truncated = Arrays.copyOf(good, cut);
            assertThrows(ProtocolException.class, () -> CallRequest.decode(truncated), "truncated at " + cut);
        }
        byte[] trailing = Arrays.copyOf(good, good.length + 1);
        assertThrows(ProtocolException.class, () -> CallRequest.decode(trailing));
        byte[] relative = new CallRequest(CallRequest.VERSION, 7, Paths.get("w"), List.of("x")).encode();
        ProtocolException e = assertThrows(ProtocolException.class, () -> CallRequest.decode(relative));
        assertTrue(e.getMessage().contains("not absolute"), e.getMessage());
        byte[] nul = new CallRequest(CallRequest.VERSION, 7, Paths.get("/w"), List.of("a\0b")).encode();
        assertThrows(ProtocolException.class, () -> CallRequest.decode(nul));
    }
}
