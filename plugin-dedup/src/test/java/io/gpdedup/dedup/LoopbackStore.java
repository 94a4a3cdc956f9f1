package io.gpdedup.dedup;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.net.StoreService;
import io.gpdedup.store.replication.ReplicationTarget;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.testsupport.S3Server;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/**
 * A real gpdedup-store on 127.0.0.1 and an ephemeral port, its data under a test's temp dir, or
 * its units in a bucket of the test JVM's S3 server (one bucket per data directory, so a restart
 * on the same directory finds its data again).
 */
public final class LoopbackStore implements AutoCloseable {
    /** Where the store keeps its units. */
    enum Backend { LOCAL, S3 }

    private static final java.util.Map<Path, String> BUCKETS = new java.util.concurrent.ConcurrentHashMap<>();

    static final String UNIT = "unit1";
    static final String USER = "backup";
    static final String PASSWORD = "s3cret";

    final StoreService service;
    final Path dataDir;

    private LoopbackStore(StoreService service, Path dataDir) {
        this.service = service;
        this.dataDir = dataDir;
    }

    public static LoopbackStore start(Path dataDir) {
        return start(dataDir, Backend.LOCAL);
    }

    static LoopbackStore start(Path dataDir, Backend backend) {
        return start(dataDir, backend, c -> c);
    }

    /** A store whose unit may copy backups to the store on {@code remotePort} of 127.0.0.1 (plain TCP). */
    static LoopbackStore startReplicatingTo(Path dataDir, int remotePort) {
        ReplicationTarget target = new ReplicationTarget("dr", "127.0.0.1", remotePort, null, Set.of());
        return start(dataDir, Backend.LOCAL, c -> c.withReplication(c.replication().withTargets(List.of(target))));
    }

    private static LoopbackStore start(Path dataDir, Backend backend, UnaryOperator<StoreConfig> config) {
        StoreConfig cfg = config.apply(StoreConfig.defaults(dataDir, Map.of(UNIT, Map.of(USER, PasswordHash.create(PASSWORD.toCharArray(), 1_000))))
                .withPort(0));
        if (backend == Backend.S3) {
            S3Server server = S3Server.shared();
            String bucket = BUCKETS.computeIfAbsent(dataDir.toAbsolutePath(), d -> server.newBucket("plugin"));
            cfg = cfg.withStorage(S3Settings.of(server.endpoint(), bucket, "", dataDir.resolveSibling(dataDir.getFileName() + "-cache"))
                    .withCredentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(S3Server.IDENTITY, S3Server.CREDENTIAL))));
        }
        try {
            return new LoopbackStore(StoreService.start(cfg, StoreService.openEngine(cfg)), dataDir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The file of the S3 server that holds the bucket object {@code key} of this store's data directory (S3 only). */
    static Path objectFile(Path dataDir, String key) {
        return S3Server.shared().bucketDirectory(BUCKETS.get(dataDir.toAbsolutePath())).resolve(key);
    }

    public int port() {
        return service.address().getPort();
    }

    public StoreClient connect() {
        return connect(port());
    }

    /** A client of this store's unit through whatever listens on {@code port} (a relay in front of it). */
    public static StoreClient connect(int port) {
        return StoreClient.connect(ClientSettings.of("127.0.0.1", port, UNIT, USER, PASSWORD));
    }

    @Override
    public void close() {
        service.close();
    }
}
