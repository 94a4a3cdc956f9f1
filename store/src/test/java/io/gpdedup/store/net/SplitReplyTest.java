package io.gpdedup.store.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.MessageType;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.reliability.ObjectIo;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Replies of several frames never hold an engine thread while the client does not read: a client
 * of unit A asks eight times (as many as there are engine threads) for a reply of 17 MiB and never
 * reads; a user of unit B still logs in, backs up and restores. The idle timeout is the default
 * 600 s: a store whose engine threads waited for the reader leaves B's login unanswered, and the
 * client gives up after its handshake timeout.
 */
@Timeout(120)
class SplitReplyTest {
    private static final int ASKS = 8;

    @TempDir
    Path dir;

    @Test
    void aClientThatNeverReadsHoldsNoEngineThread() throws Exception {
        try (StoreFixture store = StoreFixture.start(dir, c -> c.withIdleTimeout(StoreConfig.DEFAULT_IDLE_TIMEOUT), e -> e);
                RawConnection hostile = RawConnection.loggedIn(store.port())) {
            assertEquals(ASKS, StoreConfig.DEFAULT_ENGINE_THREADS, "one unread reply per engine thread");
            Fingerprint fp = putOneMiB(hostile);
            for (int i = 0; i < ASKS; i++) {
                hostile.send(Frame.of(100 + i, new Request.GetChunks(Collections.nCopies(17, fp))));
            }
            // Its replies fill the socket: the store is writing and the client reads nothing.
            byte[] data = ObjectIo.random(5, 8 << 20);
            try (StoreClient other = store.connectB()) {
                ObjectIo.write(other, "other/0", data, 256 * 1024);
                assertArrayEquals(data, ObjectIo.read(other, "other/0"));
            }
            // Control: the replies were all there to be read, in full, one after the other (one split reply at a time).
            int chunks = 0;
            int current = -1;
            for (int replies = 0; replies < ASKS;) {
                Frame f = hostile.read();
                if (current != -1) {
                    assertEquals(current, f.requestId(), "frames of another reply in the middle of one");
                }
                current = f.more() ? f.requestId() : -1;
                chunks += ((Reply.ChunksPart) f.message()).chunks().size();
                replies += f.more() ? 0 : 1;
            }
            assertEquals(ASKS * 17, chunks);
        }
    }

    static Fingerprint putOneMiB(RawConnection c) throws Exception {
        c.send(Frame.of(1, new Request.BeginBackup()));
        long lease = ((Reply.LeaseGranted) c.read().message()).lease();
        byte[] raw = new byte[1 << 20];
        new Random(3).nextBytes(raw);
        Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
        c.send(Frame.of(2, new Request.PutChunks(lease, List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw)))));
        Frame ok = c.read();
        assertTrue(ok.type() == MessageType.OK, "PUT: " + ok.message());
        return fp;
    }
}
