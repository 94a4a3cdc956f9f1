package io.gpdedup.store.net;

import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.config.DemoConfig;
import io.gpdedup.store.config.StoreConfig;
import io.gpdedup.store.config.StorePaths;
import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.engine.CommitPolicy;
import io.gpdedup.store.engine.DedupStoreEngine;
import io.gpdedup.store.engine.EngineSettings;
import io.gpdedup.store.engine.StoreEngine;
import io.gpdedup.store.engine.UnitNotServedException;
import io.gpdedup.store.metrics.MetricsEndpoint;
import io.gpdedup.store.metrics.StoreMetrics;
import io.gpdedup.store.replication.ReplicationQueue;
import io.gpdedup.store.s3.S3Backend;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Optional;

/**
 * A running store: the engine, the protocol server, the metrics endpoint and the port file, with
 * the one stop path (SIGTERM, tests, embedding) in {@link #close}. Owns the engine it is given.
 */
public final class StoreService implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(StoreService.class.getName());

    private final StoreEngine engine;
    private final StoreServer server;
    private final MetricsEndpoint metricsEndpoint;
    private final StoreMetrics metrics;
    private final ReplicationQueue replication;
    private final Path portFile;
    private boolean closed;

    private StoreService(StoreEngine engine, StoreServer server, MetricsEndpoint metricsEndpoint, StoreMetrics metrics,
            ReplicationQueue replication, Path portFile) {
        this.engine = engine;
        this.server = server;
        this.metricsEndpoint = metricsEndpoint;
        this.metrics = metrics;
        this.replication = replication;
        this.portFile = portFile;
    }

    /**
     * Serves {@code engine} as {@code config} says and writes the port file into the engine's data
     * directory. On failure the engine is closed too.
     */
    public static StoreService start(StoreConfig config, StoreEngine engine) throws IOException {
        StoreServer server = null;
        MetricsEndpoint endpoint = null;
        ReplicationQueue replication = null;
        StoreMetrics metrics = null;
        try {
            refuseDemoPasswordBeyondLoopback(config);
            metrics = new StoreMetrics();
            metrics.watchDataDirectory(engine.dataDirectory());
            for (String unit : config.units().keySet()) {
                // Opens (or creates) every configured unit now, so a bad unit name fails the start, not a login.
                try {
                    metrics.watchUnit(engine.unit(unit));
                } catch (UnitNotServedException standby) {
                    // A standby's unit another store holds: the engine takes it over once that lease lapses.
                }
            }
            if (engine instanceof DedupStoreEngine d && d.backend() instanceof S3Backend bucket) {
                metrics.register(bucket.requests());
            }
            if (engine instanceof DedupStoreEngine d) {
                d.standby().ifPresent(metrics::register);
            }
            replication = ReplicationQueue.start(engine.dataDirectory(), engine, config.replication());
            metrics.register(replication);
            server = StoreServer.start(engine, config, metrics, replication);
            if (config.metricsPort() != StoreConfig.METRICS_OFF) {
                endpoint = MetricsEndpoint.start(new InetSocketAddress(config.listenAddress(), config.metricsPort()), metrics);
            }
            Path portFile = StorePaths.portFile(engine.dataDirectory());
            writePortFile(portFile, server.address().getPort());
            LOG.log(System.Logger.Level.INFO, "serving " + describe(engine) + " on " + server.address()
                    + (server.usesEpoll() ? " (epoll)" : " (nio)")
                    + (endpoint == null ? "" : ", metrics on http://" + hostPort(endpoint.address()) + MetricsEndpoint.PATH));
            return new StoreService(engine, server, endpoint, metrics, replication, portFile);
        } catch (IOException | RuntimeException e) {
            if (endpoint != null) {
                endpoint.close();
            }
            if (server != null) {
                server.stop();
            }
            if (replication != null) {
                replication.close();
            }
            if (metrics != null) {
                metrics.close();
            }
            engine.close();
            throw e;
        }
    }

    /**
     * Opens (creating) the config's data directory with the engine settings the config asks for,
     * its units in the data directory or, with {@code storage: s3}, in the bucket.
     */
    public static DedupStoreEngine openEngine(StoreConfig config) {
        return openEngine(config, false);
    }

    /**
     * As {@link #openEngine(StoreConfig)}; with {@code standby} (and {@code storage: s3}) the store
     * is a standby: the units another store holds wait until that store's lease lapses.
     */
    public static DedupStoreEngine openEngine(StoreConfig config, boolean standby) {
        EngineSettings settings = EngineSettings.defaults().withVerifyOnPut(config.verifyOnPut()).withDiskReserveBytes(config.diskReserveBytes())
                .withReconnectGrace(config.reconnectGrace());
        if (config.unitCapacityBytes() > 0) {
            settings = settings.withCapacityBytes(config.unitCapacityBytes());
        }
        if (config.storage() != null) {
            S3Backend.check(config.storage(), locking(config)); // before the data directory is touched
            return DedupStoreEngine.open(config.dataDir(), settings, S3Backend.factory(config.storage(), locking(config),
                    config.encryption() != null ? config.encryption().load() : null), standby);
        }
        if (standby) {
            LOG.log(System.Logger.Level.WARNING, "--standby: this store keeps its units in its data directory, which no other store"
                    + " can take over; it serves them as without the flag");
        }
        if (config.encryption() != null) {
            return DedupStoreEngine.open(config.dataDir(), settings, config.encryption().load());
        }
        return DedupStoreEngine.open(config.dataDir(), settings);
    }

    /** Each unit's commit policy: which of them ask for retention locks. */
    private static Map<String, CommitPolicy> locking(StoreConfig config) {
        Map<String, CommitPolicy> out = new java.util.HashMap<>();
        for (String unit : config.units().keySet()) {
            out.put(unit, config.policy(unit).commits());
        }
        return out;
    }

    private static String describe(StoreEngine engine) {
        return engine instanceof DedupStoreEngine d ? d.describe() : engine.dataDirectory().toString();
    }

    private static void refuseDemoPasswordBeyondLoopback(StoreConfig config) throws IOException {
        InetAddress listen = InetAddress.getByName(config.listenAddress());
        if (listen.isLoopbackAddress()) {
            return;
        }
        for (Map.Entry<String, Map<String, PasswordHash>> unit : config.units().entrySet()) {
            for (Map.Entry<String, PasswordHash> user : unit.getValue().entrySet()) {
                if (user.getValue().matches(DemoConfig.PASSWORD.toCharArray())) {
                    throw new IllegalStateException("user '" + user.getKey() + "' of unit '" + unit.getKey()
                            + "' has the demo password, which is public: refusing to listen on " + config.listenAddress()
                            + ". Set a new hash (gpdedup-store hash-password) or listen on 127.0.0.1");
                }
            }
        }
    }

    /** The port, written whole: a reader sees no file or the whole number, never part of it. */
    public static void writePortFile(Path file, int port) throws IOException {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        OwnerOnly.writeString(tmp, port + "\n");
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    public static String hostPort(InetSocketAddress a) {
        String host = a.getAddress().getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }

    public InetSocketAddress address() {
        return server.address();
    }

    /**
     * Re-reads the users (and units) of {@code config} for the logins that follow. The other keys
     * take effect at the next start; a config that cannot be used changes nothing.
     */
    public synchronized void reloadUsers(StoreConfig config) throws IOException {
        if (closed) {
            return;
        }
        refuseDemoPasswordBeyondLoopback(config);
        if (engine instanceof DedupStoreEngine d && d.backend() instanceof S3Backend bucket) {
            bucket.checkLocking(locking(config)); // a lock the bucket cannot hold is refused here as at a start
        }
        server.replaceUsers(config);
    }

    public Optional<InetSocketAddress> metricsAddress() {
        return Optional.ofNullable(metricsEndpoint).map(MetricsEndpoint::address);
    }

    public StoreMetrics metrics() {
        return metrics;
    }

    /**
     * The stop path: stop accepting, let accepted requests (commits) finish within the grace period,
     * close connections (aborting their leases), stop the replication worker (its copy in progress
     * stays queued), stop the metrics endpoint, close the engine,
     * remove the port file. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            server.stop();
            // Before the engine closes: the worker reads backups from it.
            replication.close();
        } finally {
            if (metricsEndpoint != null) {
                metricsEndpoint.close();
            }
            metrics.close();
            try {
                engine.close();
            } finally {
                try {
                    Files.deleteIfExists(portFile);
                } catch (IOException e) {
                    LOG.log(System.Logger.Level.WARNING, "cannot remove " + portFile + ": " + e.getMessage());
                }
            }
        }
    }
}
