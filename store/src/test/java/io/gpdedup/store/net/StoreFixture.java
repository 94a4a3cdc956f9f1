package io.gpdedup.store.net;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.engine.DedupStoreEngine;
import io.gpdedup.store.engine.StoreEngine;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * A real server for tests: DedupStoreEngine in a temp dir, 127.0.0.1, an ephemeral port, two
 * storage units with one user each. Closing it is the production stop path.
 */
public final class StoreFixture implements AutoCloseable {
    public static final String UNIT_A = "alpha";
    public static final String USER_A = "alice";
    public static final String PASSWORD_A = "alice-secret";
    public static final String UNIT_B = "beta";
    public static final String USER_B = "bob";
    public static final String PASSWORD_B = "bob-secret";

    /** Few iterations: the tests log in often; production hashes use PasswordHash.DEFAULT_ITERATIONS. */
    private static final int TEST_ITERATIONS = 1_000;
    private static final Map<String, Map<String, PasswordHash>> USERS = Map.of(
            UNIT_A, Map.of(USER_A, PasswordHash.create(PASSWORD_A.toCharArray(), TEST_ITERATIONS)),
            UNIT_B, Map.of(USER_B, PasswordHash.create(PASSWORD_B.toCharArray(), TEST_ITERATIONS)));

    public final StoreService service;
    public final Path dataDir;

    private StoreFixture(StoreService service, Path dataDir) {
        this.service = service;
        this.dataDir = dataDir;
    }

    public static StoreFixture start(Path dataDir) {
        return start(dataDir, c -> c, e -> e);
    }

    /** With a changed config (limits, timeouts) and, optionally, the engine wrapped (to hold a commit). */
    public static StoreFixture start(Path dataDir, UnaryOperator<StoreConfig> config, UnaryOperator<StoreEngine> wrap) {
        StoreConfig cfg = config.apply(StoreConfig.defaults(dataDir, USERS).withPort(0)
                .withIdleTimeout(Duration.ofSeconds(30)));
        try {
            return new StoreFixture(StoreService.start(cfg, wrap.apply(DedupStoreEngine.open(dataDir))), dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return service.address().getPort();
    }

    public ClientSettings settingsA() {
        return ClientSettings.of("127.0.0.1", port(), UNIT_A, USER_A, PASSWORD_A).withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(30));
    }

    public ClientSettings settingsB() {
        return ClientSettings.of("127.0.0.1", port(), UNIT_B, USER_B, PASSWORD_B).withTimeouts(Duration.ofSeconds(5), Duration.ofSeconds(30));
    }

    public StoreClient connectA() {
        return StoreClient.connect(settingsA());
    }

    public StoreClient connectB() {
        return StoreClient.connect(settingsB());
    }

    @Override
    public void close() {
        service.close();
    }
}
