package io.gpdedup.store.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fields a later protocol version added reach only the connections that agreed on it. */
class ProtocolVersionFieldsTest {
    private static final byte[] STREAM_SHA = new byte[Fingerprint.LENGTH];

    static {
        STREAM_SHA[1] = 9;
    }

    @TempDir
    Path dir;

    @Test
    void anObjectWithoutStreamHashGoesToVersionFourClientsWithItsChunkListAndIsRefusedToOlderOnes() throws Exception {
        try (StoreFixture store = StoreFixture.start(dir)) {
            byte[] listed = Recipe.listSha256(List.of(), 0);
            try (RawConnection c = RawConnection.loggedIn(store.port())) {
                c.send(Frame.of(3, new Request.BeginBackup()));
                long lease = ((Reply.LeaseGranted) c.read().message()).lease();
                c.send(Frame.of(4, new Request.Commit(lease, "unhashed", 0, null, List.of(), listed)));
                assertTrue(c.read().message() instanceof Reply.Ok);
            }
            try (RawConnection c = login(store, ProtocolVersions.V4)) {
                c.send(Frame.of(3, new Request.GetRecipe("unhashed")));
                Reply.RecipePart part = (Reply.RecipePart) c.read().message();
                assertNull(part.streamSha256());
                assertArrayEquals(listed, part.chunkListSha256());
            }
            try (RawConnection c = login(store, ProtocolVersions.V3)) {
                c.send(Frame.of(3, new Request.GetRecipe("unhashed")));
                Reply.Error e = (Reply.Error) c.read().message();
                assertEquals(ErrorCode.BAD_REQUEST, e.code());
                assertTrue(e.message().contains("unhashed") && e.message().contains("newer plugin"), e.message());
            }
        }
    }

    /** Logged in offering versions 1 to {@code upTo}, which the server must choose. */
    private static RawConnection login(StoreFixture store, int upTo) throws Exception {
        List<Integer> versions = new java.util.ArrayList<>();
        for (int v = ProtocolVersions.V1; v <= upTo; v++) {
            versions.add(v);
        }
        RawConnection c = RawConnection.loggedIn(store.port(), versions);
        assertEquals(upTo, c.version());
        return c;
    }

    @Test
    void theChunkListDigestReachesOnlyVersionFourConnections() throws Exception {
        try (StoreFixture store = StoreFixture.start(dir)) {
            check(store);
        }
    }

    private static void check(StoreFixture store) throws Exception {
        byte[] listed = new byte[Fingerprint.LENGTH];
        listed[0] = 7;
        try (RawConnection c = RawConnection.loggedIn(store.port())) {
            c.send(Frame.of(3, new Request.BeginBackup()));
            long lease = ((Reply.LeaseGranted) c.read().message()).lease();
            c.send(Frame.of(4, new Request.Commit(lease, "listed", 0, STREAM_SHA, List.of(), listed)));
            assertTrue(c.read().message() instanceof Reply.Ok);
            c.send(Frame.of(5, new Request.GetRecipe("listed")));
            assertArrayEquals(listed, ((Reply.RecipePart) c.read().message()).chunkListSha256());
        }
        try (RawConnection c = login(store, ProtocolVersions.V3)) {
            c.send(Frame.of(3, new Request.GetRecipe("listed")));
            Reply.RecipePart part = (Reply.RecipePart) c.read().message();
            assertEquals(null, part.chunkListSha256(), "a version 3 client would read the digest as bytes after the body");
        }
    }
}
