package io.gpdedup.store.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.protocol.wire.StoreProtocolException;
import io.gpdedup.store.net.StoreFixture;
import io.gpdedup.testsupport.Mutator;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A sample of mutated frames through a real server socket (FrameDecoder, MessageDecoder and the
 * handlers), before and after login. For each: the server answers only well-formed frames, never
 * INTERNAL, and closes the connection once the client's input ends (nothing waits forever); after
 * all of them the server still serves a backup and its restore.
 */
@Timeout(300)
class ServerDecoderFuzzTest {
    private static byte[] bytes(Frame f) {
        ByteBuffer b = FrameCodec.encode(f);
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    @Test
    void mutatedFramesNeverBreakTheServer(@TempDir Path dir) throws IOException {
        int sample = Integer.getInteger("gpdedup.fuzz.server.iterations", 400);
        try (StoreFixture store = StoreFixture.start(dir)) {
            byte[] hello = bytes(Frame.of(1, new Request.Hello(ProtocolVersions.SUPPORTED)));
            byte[] auth = bytes(Frame.of(2, new Request.Auth(StoreFixture.UNIT_A, StoreFixture.USER_A, StoreFixture.PASSWORD_A)));
            Mutator mutator = new Mutator(424242, FrameCodecFuzzTest.samples());
            int[] closedByServerFirst = new int[1];
            int errors = 0;
            for (int i = 0; i < sample; i++) {
                byte[] input = mutator.next();
                boolean loggedIn = i % 2 == 1;
                try (Socket s = new Socket("127.0.0.1", store.port())) {
                    s.setSoTimeout(15_000);
                    ByteArrayOutputStream sent = new ByteArrayOutputStream();
                    if (loggedIn) {
                        sent.writeBytes(hello);
                        sent.writeBytes(auth);
                    }
                    sent.writeBytes(input);
                    try {
                        s.getOutputStream().write(sent.toByteArray());
                        s.shutdownOutput();
                    } catch (SocketException closedAlready) {
                        closedByServerFirst[0]++;
                    }
                    errors += readRepliesUntilClose(s.getInputStream(), i, input);
                }
            }
            System.out.printf("server decoder fuzz: %d connections, %d ERROR replies, %d closed before all was sent%n",
                    sample, errors, closedByServerFirst[0]);
            assertNotEquals(0, errors, "the sample must reach the server's error path");
            try (StoreClient client = store.connectA()) {
                byte[] data = ObjectIo.random(5, 200_000);
                ObjectIo.write(client, "after/fuzz", data, 32 * 1024);
                assertArrayEquals(data, ObjectIo.read(client, "after/fuzz"));
            }
            // Closing is asynchronous on the server's side: give it a moment, then it must be 0.
            for (int wait = 0; wait < 100 && store.service.metrics().openConnections() > 0; wait++) {
                sleep(50);
            }
            assertEquals(0, store.service.metrics().openConnections(), "every fuzzed connection was closed");
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Reads reply frames to EOF; every one must decode, none may be INTERNAL. Returns the ERROR count. */
    private static int readRepliesUntilClose(InputStream raw, int i, byte[] input) throws IOException {
        DataInputStream in = new DataInputStream(raw);
        int errors = 0;
        List<String> seen = new ArrayList<>();
        while (true) {
            int length;
            try {
                length = in.readInt();
            } catch (EOFException | SocketException end) {
                return errors;
            } catch (SocketTimeoutException e) {
                fail("input " + i + ": the server neither answered nor closed within 15 s after the input ended: "
                        + FrameCodecFuzzTest.hex(input) + " replies so far " + seen);
                return errors;
            }
            if (length < FrameCodec.HEADER || length > FrameCodec.DEFAULT_MAX_FRAME) {
                fail("input " + i + ": the server sent a frame length " + length);
            }
            byte[] body = new byte[length];
            try {
                in.readFully(body);
            } catch (SocketException reset) {
                return errors;
            }
            Frame f;
            try {
                f = FrameCodec.decode(ByteBuffer.wrap(body));
            } catch (StoreProtocolException e) {
                fail("input " + i + ": the server sent a malformed frame: " + e.getMessage());
                return errors;
            }
            seen.add(f.message().getClass().getSimpleName());
            if (f.message() instanceof Reply.Error e) {
                errors++;
                if (e.code() == ErrorCode.INTERNAL) {
                    fail("input " + i + " made the server report INTERNAL: " + e.message() + " input " + FrameCodecFuzzTest.hex(input));
                }
            }
        }
    }
}
