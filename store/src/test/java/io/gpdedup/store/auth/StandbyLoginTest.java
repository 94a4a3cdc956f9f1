package io.gpdedup.store.auth;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.engine.DedupStoreEngine;
import io.gpdedup.store.engine.EngineSettings;
import io.gpdedup.store.net.RawConnection;
import io.gpdedup.store.net.StoreService;
import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.store.s3.TestBuckets;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The answer of a standby store (a bucket unit another store holds, on a real S3 server) to a
 * login over raw frames: NOT_SERVED on protocol version 7, STORE_ERROR with the same message on
 * version 6 and what to upgrade, the connection closed after either; a wrong password still gets AUTH_FAILED, so a
 * stranger learns nothing about who holds the unit.
 */
@Timeout(300)
class StandbyLoginTest {
    private static final String UNIT = "prod";
    private static final String USER = "backup";
    private static final String PASSWORD = "standby-secret";

    @TempDir
    Path dir;

    private DedupStoreEngine engine(S3Settings s3, String name, boolean standby) {
        return DedupStoreEngine.open(dir.resolve(name), EngineSettings.defaults(), S3Backend.factory(s3.withCacheDir(dir.resolve(name + "-cache"))),
                standby);
    }

    @Test
    void aLoginToAUnitAnotherStoreHoldsIsNotServed() throws Exception {
        S3Settings s3 = TestBuckets.fresh("standby-login", dir).withLeaseSeconds(6);
        StoreConfig config = StoreConfig.defaults(dir.resolve("b"), Map.of(UNIT, Map.of(USER, PasswordHash.create(PASSWORD.toCharArray(), 1_000))))
                .withPort(0);
        try (DedupStoreEngine holder = engine(s3, "a", false)) {
            holder.unit(UNIT);
            try (StoreService standby = StoreService.start(config, engine(s3, "b", true))) {
                int port = standby.address().getPort();
                Reply.Error v7 = login(port, ProtocolVersions.SUPPORTED, PASSWORD);
                assertEquals(ErrorCode.NOT_SERVED, v7.code(), v7.message());
                assertTrue(v7.message().startsWith("storage unit 'prod' is held by the store on host ")
                        && v7.message().contains("this store is its standby"), v7.message());

                Reply.Error v6 = login(port, List.of(ProtocolVersions.V1, ProtocolVersions.V2, ProtocolVersions.V3, ProtocolVersions.V4,
                        ProtocolVersions.V5, ProtocolVersions.V6), PASSWORD);
                assertEquals(ErrorCode.STORE_ERROR, v6.code(), v6.message());
                assertEquals(v7.message() + "; the client speaks protocol version 6, without the answer (version 7) that sends a client"
                        + " on to the store holding the unit: upgrade the plugin", v6.message());

                Reply.Error wrong = login(port, ProtocolVersions.SUPPORTED, "not-the-password");
                assertEquals(ErrorCode.AUTH_FAILED, wrong.code(), wrong.message());
                assertTrue(!wrong.message().contains("standby") && !wrong.message().contains("host"), wrong.message());
            }
        }
    }

    /** HELLO offering {@code versions}, AUTH: the ERROR that answers it, after which the server must close the connection. */
    private static Reply.Error login(int port, List<Integer> versions, String password) throws IOException {
        try (RawConnection c = new RawConnection(port)) {
            c.send(Frame.of(1, new Request.Hello(versions)));
            assertTrue(c.read().message() instanceof Reply.HelloOk);
            c.send(Frame.of(2, new Request.Auth(UNIT, USER, password)));
            Frame answer = c.read();
            assertTrue(answer.message() instanceof Reply.Error, answer.toString());
            assertTrue(c.closedByServer(), "the connection stays open after " + answer);
            return (Reply.Error) answer.message();
        }
    }
}
