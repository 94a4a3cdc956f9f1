package io.gpdedup.dedup;

import io.gpdedup.store.client.ClientSettings;
import io.gpdedup.store.client.StoreClient;
import io.gpdedup.store.engine.DiskStoreEngine;
import io.gpdedup.store.server.PasswordHash;
import io.gpdedup.store.server.StoreConfig;
import io.gpdedup.store.server.StoreService;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;

/** A real gpdedup-store on 127.0.0.1 and an ephemeral port, its data under a test's temp dir. */
final class StoreServer implements AutoCloseable {
    static final String UNIT = "unit1";
    static final String USER = "backup";
    static final String PASSWORD = "s3cret";

    final StoreService service;
    final Path dataDir;

    private StoreServer(StoreService service, Path dataDir) {
        this.service = service;
        this.dataDir = dataDir;
    }

    static StoreServer start(Path dataDir) {
        StoreConfig cfg = StoreConfig.defaults(dataDir, Map.of(UNIT, Map.of(USER, PasswordHash.create(PASSWORD.toCharArray(), 1_000))))
                .withPort(0);
        try {
            return new StoreServer(StoreService.start(cfg, DiskStoreEngine.open(dataDir)), dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    int port() {
        return service.address().getPort();
    }

    StoreClient connect() {
        return StoreClient.connect(ClientSettings.of("127.0.0.1", port(), UNIT, USER, PASSWORD));
    }

    @Override
    public void close() {
        service.close();
    }
}
