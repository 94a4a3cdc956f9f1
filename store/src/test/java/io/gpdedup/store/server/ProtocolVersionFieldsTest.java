package io.gpdedup.store.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.chunk.Fingerprint;
import io.gpdedup.store.protocol.Frame;
import io.gpdedup.store.protocol.ProtocolVersions;
import io.gpdedup.store.protocol.Reply;
import io.gpdedup.store.protocol.Request;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Fields a later protocol version added reach only the connections that agreed on it. */
class ProtocolVersionFieldsTest {
    @TempDir
    Path dir;

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
            c.send(Frame.of(4, new Request.Commit(lease, "listed", 0, new byte[Fingerprint.LENGTH], List.of(), listed)));
            assertTrue(c.read().message() instanceof Reply.Ok);
            c.send(Frame.of(5, new Request.GetRecipe("listed")));
            assertArrayEquals(listed, ((Reply.RecipePart) c.read().message()).chunkListSha256());
        }
        try (RawConnection c = new RawConnection(store.port())) {
            c.send(Frame.of(1, new Request.Hello(List.of(ProtocolVersions.V1, ProtocolVersions.V2, ProtocolVersions.V3))));
            assertEquals(ProtocolVersions.V3, ((Reply.HelloOk) c.read().message()).version());
            c.send(Frame.of(2, new Request.Auth(StoreFixture.UNIT_A, StoreFixture.USER_A, StoreFixture.PASSWORD_A)));
            assertTrue(c.read().message() instanceof Reply.AuthOk);
            c.send(Frame.of(3, new Request.GetRecipe("listed")));
            Reply.RecipePart part = (Reply.RecipePart) c.read().message();
            assertEquals(null, part.chunkListSha256(), "a version 3 client would read the digest as bytes after the body");
        }
    }
}
