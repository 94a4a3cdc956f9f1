package io.gpdedup.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.store.net.StoreFixture;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client takes no frame longer than the server announced, nor than 64 MiB whatever it
 * announced: a hostile server announcing 2 GiB and sending a frame that long gets one clear error,
 * during the login or after it, and the client sets nothing aside for the frame.
 */
@Timeout(60)
class ClientFrameLimitTest {
    private static ClientSettings settings(int port) {
        return ClientSettings.of("127.0.0.1", port, "u", "user", "password").withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(20));
    }

    @Test
    void aHugeFrameAsTheAnswerToTheLoginIsRefused() throws Exception {
        try (HugeFrameServer server = HugeFrameServer.start(false)) {
            StoreClientException e = assertThrows(StoreClientException.class, () -> StoreClient.connect(settings(server.port())));
            assertTrue(e.getMessage().contains("a frame of " + HugeFrameServer.ANNOUNCED + " bytes, above the " + FrameCodec.LARGEST_MAX_FRAME
                    + " bytes this client takes"), e.getMessage());
            assertFalse(e.getMessage().contains("Exception"), e.getMessage());
        }
    }

    @Test
    void aHugeFrameAfterTheLoginFailsTheConnectionNotTheClient() throws Exception {
        try (HugeFrameServer server = HugeFrameServer.start(true); StoreClient client = StoreClient.connect(settings(server.port()))) {
            assertEquals(FrameCodec.LARGEST_MAX_FRAME, client.maxFrameLength(), "the announced 2 GiB is capped");
            StoreClientException e = assertThrows(StoreClientException.class, () -> client.list("any/"));
            assertTrue(e.getMessage().contains("a frame of " + HugeFrameServer.ANNOUNCED + " bytes, above the " + FrameCodec.LARGEST_MAX_FRAME
                    + " bytes this client takes"), e.getMessage());
        }
    }

    @Test
    void aRealStoreIsTakenAtItsWord(@TempDir Path dir) {
        try (StoreFixture store = StoreFixture.start(dir); StoreClient client = store.connectA()) {
            assertEquals(FrameCodec.DEFAULT_MAX_FRAME, client.maxFrameLength());
            assertEquals(0, client.list("any/").size());
        }
    }
}
