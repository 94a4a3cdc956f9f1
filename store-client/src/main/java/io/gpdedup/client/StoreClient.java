package io.gpdedup.client;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.ReplicaTarget;
import io.gpdedup.protocol.wire.ReplicationJobStatus;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.function.Function;

/**
 * A connection to gpdedup-store, logged in to one storage unit. Thread-safe: any number of threads
 * may have requests in flight at once; replies are paired with requests by id. Asynchronous
 * methods return futures that fail with a {@link StoreClientException} (a
 * {@link StoreServerException} when the server answered with an error); blocking methods throw
 * them.
 *
 * <p>Requests that change the unit (backup, delete, verify, gc) are carried out in the order they
 * were sent; reads may overtake them, so wait for a write's result before reading what it wrote.
 *
 * <p>With a {@link ClientSettings#reconnectTimeout() reconnect timeout}, a broken connection is
 * replaced by a new one (tries with growing pauses, until the timeout has passed since it broke):
 * requests that only read or delete are sent again on it, and backup sessions carry on
 * (docs/protocol.md section 3.5). The first connection is never retried: a wrong address or
 * password fails at once.
 *
 * <p>Given several store addresses, every connection (the first and each replacement) goes to
 * whichever of them serves the unit: the one that served last is tried first, and one that is
 * away, stopping, or does not hold the unit now (NOT_SERVED, a standby) is passed over. So a call in
 * flight when the store holding the unit dies carries on with the one that takes over.
 */
public final class StoreClient implements AutoCloseable {
    /** Reconnections wait and block: never on a reader thread or a caller's pool. */
    private static final Executor RECONNECTS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "gpdedup-store-reconnect");
        t.setDaemon(true);
        return t;
    });

    private final ClientSettings settings;
    private final Object lock = new Object();
    private volatile Connection connection;
    private CompletableFuture<Connection> reconnecting; // guarded by lock
    private Connection givenUp; // guarded by lock: the broken connection no reconnection could replace
    private StoreClientException givenUpCause; // guarded by lock
    private boolean keepAlive; // guarded by lock
    private int reconnects; // guarded by lock
    private volatile boolean closed;

    private StoreClient(Connection connection, ClientSettings settings) {
        this.connection = connection;
        this.settings = settings;
    }

    /**
     * Connects and logs in (each address tried once, in order).
     *
     * @throws StoreConnectException if no server can be reached, or none serves the unit
     * @throws StoreAuthException if it refuses the unit, user or password
     * @throws StoreClientException if the handshake fails otherwise
     */
    public static StoreClient connect(ClientSettings settings) {
        return new StoreClient(Dialer.once(settings), settings);
    }

    /**
     * Connects and logs in as {@link #connect} does, but all of it (TCP, TLS, login) within the
     * connect timeout: a store that accepts and never answers fails then, not after the read timeout.
     */
    public static StoreClient connectWithin(ClientSettings settings) {
        return new StoreClient(Dialer.within(settings, null, () -> false, false), settings);
    }

    /**
     * As {@link #connectWithin}, but while the store refuses or resets the connection tries again
     * with growing pauses until the connect timeout has passed: for a call that should wait out a
     * store restart of a few seconds, or a failover. A refused or throttled login fails at once; a
     * store that accepts and never answers is not tried again (the only one: it fails at once).
     */
    public static StoreClient connectPatiently(ClientSettings settings) {
        return new StoreClient(Dialer.within(settings, null, () -> false, true), settings);
    }

    /** Opens a backup stream (a lease): one object to write. */
    public BackupSession beginBackup() {
        return new BackupSession(this, await(call(BackupSession::begin)));
    }

    /** The recipe of a committed object, or empty if there is no object of that name. */
    public Optional<Recipe> recipe(String objectName) {
        return await(call(c -> recipeOn(c, objectName)));
    }

    static CompletableFuture<Optional<Recipe>> recipeOn(Connection c, String objectName) {
        return c.send(new Request.GetRecipe(objectName), ReplyCollector.recipe(objectName));
    }

    /**
     * The stored chunks, in the order asked, exactly as put: the caller decodes each and checks it
     * against its fingerprint. Fails (STORE_ERROR) if any is absent or unreadable. Batches above
     * the server's max batch are split into several requests.
     */
    public CompletableFuture<List<StoredChunk>> chunks(Fingerprint[] fingerprints) {
        List<Fingerprint> all = Arrays.asList(fingerprints.clone());
        if (all.isEmpty()) {
            return CompletableFuture.completedFuture(List.of());
        }
        List<CompletableFuture<List<StoredChunk>>> parts = new ArrayList<>();
        int maxBatch = maxBatch();
        for (int from = 0; from < all.size(); from += maxBatch) {
            List<Fingerprint> batch = all.subList(from, Math.min(all.size(), from + maxBatch));
            parts.add(call(c -> c.send(new Request.GetChunks(batch), ReplyCollector.chunks(batch.size()))));
        }
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            List<StoredChunk> chunks = new ArrayList<>(all.size());
            for (CompletableFuture<List<StoredChunk>> p : parts) {
                chunks.addAll(p.join());
            }
            return chunks;
        });
    }

    /** Committed objects whose names start with {@code prefix} (empty: all), sorted by name. */
    public List<ObjectInfo> list(String prefix) {
        return await(call(c -> c.send(new Request.ListObjects(prefix), ReplyCollector.objects())));
    }

    /**
     * Deletes the objects whose names start with {@code prefix} (which must not be empty); their
     * chunks are reclaimed by the next gc. Returns how many objects were deleted.
     */
    public long deleteObjects(String prefix) {
        return deleteObjects(prefix, false);
    }

    /**
     * As {@link #deleteObjects(String)}; with {@code bypassGovernance} a unit admin also deletes
     * objects whose governance retention lock has not ended (the store logs it). Objects under a
     * compliance lock are never deleted before it ends: the store answers LOCKED and deletes none.
     */
    public long deleteObjects(String prefix, boolean bypassGovernance) {
        if (bypassGovernance) {
            requireVersion(ProtocolVersions.V6, "bypassing governance retention locks");
        }
        return await(call(c -> c.send(new Request.DeleteObjects(prefix, bypassGovernance),
                ReplyCollector.single("DELETE", Reply.Count.class, Reply.Count::count))));
    }

    /** Deletes exactly the object {@code objectName}; returns whether it existed. */
    public boolean deleteObject(String objectName) {
        return await(call(c -> c.send(new Request.DeleteObject(objectName),
                ReplyCollector.single("DELETE_OBJECT", Reply.Count.class, Reply.Count::count)))) > 0;
    }

    public UnitStats stats() {
        return await(call(c -> c.send(new Request.GetStats(), ReplyCollector.single("STATS", Reply.Stats.class, Reply.Stats::stats))));
    }

    /** Re-reads and re-hashes the unit's chunks on the server; may take long (no read timeout). */
    public VerifyReport verify() {
        return await(connection.send(new Request.Verify(),
                ReplyCollector.single("VERIFY", Reply.VerifyResult.class, Reply.VerifyResult::report, false)));
    }

    /** Reclaims chunks no object references; may take long (no read timeout). */
    public GcReport gc() {
        return await(connection.send(new Request.CollectGarbage(),
                ReplyCollector.single("GC", Reply.GcResult.class, Reply.GcResult::report, false)));
    }

    /**
     * Asks the store to copy every object under {@code sourcePrefix} to {@code target} in the
     * background, logging in there with {@code password}; returns the job's id at once. The
     * store keeps the job across restarts and retries it until it is done.
     *
     * @throws StoreClientException if the store speaks a protocol version without replication
     */
    public long replicate(String sourcePrefix, ReplicaTarget target, String password) {
        requireVersion(ProtocolVersions.V2, "background replication");
        return await(connection.send(new Request.Replicate(sourcePrefix, target, password),
                ReplyCollector.single("REPLICATE", Reply.ReplicationQueued.class, Reply.ReplicationQueued::jobId)));
    }

    /** The unit's replication jobs: waiting, running, and the most recent finished ones. */
    public List<ReplicationJobStatus> replicationJobs() {
        requireVersion(ProtocolVersions.V2, "replication status");
        return await(call(c -> c.send(new Request.ReplicationStatus(), ReplyCollector.replicationJobs())));
    }

    private void requireVersion(int version, String what) {
        if (protocolVersion() < version) {
            throw new StoreClientException("gpdedup-store at " + address() + " speaks protocol version "
                    + protocolVersion() + ", " + what + " needs version " + version + ": upgrade the store");
        }
    }

    /** One round trip that touches nothing. */
    public void ping() {
        await(call(c -> c.send(new Request.Ping(), ReplyCollector.single("PING", Reply.Ok.class, ok -> null))));
    }

    /**
     * While on, the connection sends a PING whenever it has been quiet for a quarter of the server's
     * idle timeout (as the server says in protocol version 3; 600 s assumed before), so that it
     * survives pauses of the caller of any length; a replacement connection inherits the setting.
     * Off by default, so that idle pooled connections are closed by the server as usual.
     */
    public void keepAlive(boolean on) {
        synchronized (lock) {
            keepAlive = on;
            connection.keepAlive(on);
        }
    }

    /** The keep-alive interval of the current connection. */
    Duration keepAliveInterval() {
        return connection.keepAliveInterval();
    }

    /** How many times a broken connection of this client was replaced by a new one. */
    public int reconnects() {
        synchronized (lock) {
            return reconnects;
        }
    }

    /** The protocol version agreed in the handshake. */
    public int protocolVersion() {
        return connection.version();
    }

    /** The host:port of the store the client is connected to now, for messages. */
    public String address() {
        return connection.peer();
    }

    /** The server's max frame length: the largest request (and chunk upload batch) it accepts. */
    public int maxFrameLength() {
        return connection.maxFrame();
    }

    /** The server's max entries per MISSING, PUT_CHUNKS or GET_CHUNKS request (the client splits above it). */
    public int maxBatch() {
        return connection.maxBatch();
    }

    Connection connection() {
        return connection;
    }

    public ClientSettings settings() {
        return settings;
    }

    /** False once the connection has failed or been closed; a new client must then be connected. */
    public boolean isOpen() {
        return !closed && connection.isOpen();
    }

    /** Closes the connection; requests in flight fail, open backup sessions are aborted by the server. */
    @Override
    public void close() {
        closed = true;
        synchronized (lock) {
            connection.close();
        }
    }

    /**
     * Sends a request on the current connection and, if the connection breaks before the answer,
     * again on a new one, as the reconnect timeout allows. For requests that may run twice.
     */
    <T> CompletableFuture<T> call(Function<Connection, CompletableFuture<T>> request) {
        return call(request, connection, 0);
    }

    /** As {@link #call(Function)}, on {@code on} first, for a request whose first failure was at {@code firstFailure} (0: none yet). */
    <T> CompletableFuture<T> call(Function<Connection, CompletableFuture<T>> request, Connection on, long firstFailure) {
        CompletableFuture<T> sent = request.apply(on);
        if (settings.reconnectTimeout().isZero()) {
            return sent;
        }
        return sent.handle((v, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(v);
            }
            Throwable cause = Futures.cause(e);
            long first = firstFailure == 0 ? System.nanoTime() : firstFailure;
            if (!mayRetry(cause, first)) {
                return CompletableFuture.<T>failedFuture(cause);
            }
            return reconnect(on, cause).thenCompose(c -> call(request, c, first));
        }).thenCompose(f -> f);
    }

    /**
     * Whether a request that failed with {@code cause}, first at {@code firstFailureNanos}, may be
     * tried again on a new connection: the connection broke (or its server is stopping), the client
     * is open, and the reconnect timeout has not passed since.
     */
    boolean mayRetry(Throwable cause, long firstFailureNanos) {
        return !closed && connectionTrouble(cause) && !settings.reconnectTimeout().isZero()
                && System.nanoTime() - firstFailureNanos <= settings.reconnectTimeout().toNanos();
    }

    /** Failures a new connection may cure. */
    static boolean connectionTrouble(Throwable cause) {
        if (cause instanceof StoreServerException e) {
            return e.code() == ErrorCode.SHUTTING_DOWN || e.code() == ErrorCode.THROTTLED;
        }
        return cause instanceof StoreConnectionLostException || cause instanceof StoreConnectException c && !c.lasting();
    }

    /**
     * The connection that replaces {@code broken}: the current one if that is another, else a new
     * one, opened on a thread of its own with growing pauses until the reconnect timeout has passed.
     * Every caller that lost the same connection shares one attempt; once it has failed, they fail at once.
     */
    CompletableFuture<Connection> reconnect(Connection broken, Throwable why) {
        synchronized (lock) {
            if (closed) {
                return CompletableFuture.failedFuture(new StoreClientException("client closed the connection to "
                        + connection.peer()));
            }
            if (connection != broken) {
                return CompletableFuture.completedFuture(connection);
            }
            if (givenUp == broken) {
                return CompletableFuture.failedFuture(givenUpCause);
            }
            if (reconnecting == null) {
                // A server that is stopping answers SHUTTING_DOWN on a connection that still works: leave it.
                broken.abandon(String.valueOf(why.getMessage()));
                CompletableFuture<Connection> next = CompletableFuture.supplyAsync(() -> Dialer.within(settings, why, () -> closed, true), RECONNECTS);
                reconnecting = next;
                next.whenComplete((c, e) -> replaced(broken, c, e));
            }
            return reconnecting;
        }
    }

    private void replaced(Connection broken, Connection next, Throwable failure) {
        synchronized (lock) {
            reconnecting = null;
            if (next == null) {
                givenUp = broken;
                givenUpCause = rethrowable(failure) instanceof StoreClientException c ? c
                        : new StoreClientException("reconnecting to gpdedup-store failed: " + failure, failure);
                return;
            }
            connection = next;
            reconnects++;
            next.keepAlive(keepAlive);
            if (closed) {
                next.close();
            }
        }
    }

    /** The result, or the failure as the {@link StoreClientException} it is. */
    static <T> T await(CompletableFuture<T> future) {
        return Futures.await(future, StoreClient::rethrowable, e -> new StoreClientException("interrupted while waiting for gpdedup-store", e));
    }

    static RuntimeException rethrowable(Throwable e) {
        Throwable cause = Futures.cause(e);
        if (cause instanceof RuntimeException r) {
            return r;
        }
        return new StoreClientException(String.valueOf(cause.getMessage()), cause);
    }
}
