package io.gpdedup.dedup.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreAddress;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.net.StoreService;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.testsupport.S3Server;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * What only protocol version 7 has, a standby's NOT_SERVED, as a client one version older meets
 * it: two real stores on one bucket of the test S3 server, one holding the unit, one its standby.
 * Through a relay that caps the client at version 6 the login at the standby fails with one line
 * saying to upgrade the plugin; a client of version 7 given both addresses moves on to the holder.
 */
@Timeout(120)
class OlderClientAtAStandbyTest {
    private static final String UNIT = "prod";
    private static final String USER = "backup";
    private static final String PASSWORD = "standby-secret";

    @TempDir
    Path dir;

    @Test
    void aVersionSixClientIsToldToUpgradeThePlugin() throws Exception {
        S3Server s3 = S3Server.shared();
        String bucket = s3.newBucket("older-client");
        try (StoreService holder = start(s3, bucket, "holder", false);
                StoreService standby = start(s3, bucket, "standby", true);
                VersionCappingRelay six = VersionCappingRelay.start(port(standby), ProtocolVersions.V6)) {
            StoreClientException e = assertThrows(StoreClientException.class,
                    () -> StoreClient.connect(ClientSettings.of("127.0.0.1", six.port(), UNIT, USER, PASSWORD)).close());
            assertEquals(List.of(ProtocolVersions.V6), six.agreed());
            String line = e.getMessage();
            assertTrue(line.contains("storage unit 'prod' is held by the store on host ") && line.contains("this store is its standby")
                    && line.endsWith("; the client speaks protocol version 6, without the answer (version 7) that sends a client on to the"
                            + " store holding the unit: upgrade the plugin"), line);
            assertFalse(line.contains("\n") || line.contains("Exception"), line);

            List<StoreAddress> both = List.of(new StoreAddress("127.0.0.1", port(standby)), new StoreAddress("127.0.0.1", port(holder)));
            try (StoreClient seven = StoreClient.connect(ClientSettings.of(both, UNIT, USER, PASSWORD))) {
                seven.ping();
            }
        }
    }

    private StoreService start(S3Server s3, String bucket, String name, boolean standby) throws IOException {
        StoreConfig config = StoreConfig.defaults(dir.resolve(name), Map.of(UNIT, Map.of(USER, PasswordHash.create(PASSWORD.toCharArray(), 1_000))))
                .withPort(0)
                .withStorage(S3Settings.of(s3.endpoint(), bucket, "", dir.resolve(name + "-cache"))
                        .withCredentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(S3Server.IDENTITY, S3Server.CREDENTIAL))));
        return StoreService.start(config, StoreService.openEngine(config, standby));
    }

    private static int port(StoreService store) {
        return store.address().getPort();
    }
}
