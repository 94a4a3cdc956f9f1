package io.gpdedup.store.client;

import io.gpdedup.store.Fingerprint;
import io.gpdedup.store.engine.GcReport;
import io.gpdedup.store.engine.ObjectInfo;
import io.gpdedup.store.engine.Recipe;
import io.gpdedup.store.engine.StoredChunk;
import io.gpdedup.store.engine.UnitStats;
import io.gpdedup.store.engine.VerifyReport;
import io.gpdedup.store.protocol.ProtocolVersions;
import io.gpdedup.store.protocol.ReplicaTarget;
import io.gpdedup.store.protocol.ReplicationJobStatus;
import io.gpdedup.store.protocol.Reply;
import io.gpdedup.store.protocol.Request;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/**
 * A connection to gpdedup-store, logged in to one storage unit. Thread-safe: any number of threads
 * may have requests in flight at once; replies are paired with requests by id. Asynchronous
 * methods return futures that fail with a {@link StoreClientException} (a
 * {@link StoreServerException} when the server answered with an error); blocking methods throw
 * them.
 *
 * <p>Requests that change the unit (backup, delete, verify, gc) are carried out in the order they
 * were sent; reads may overtake them, so wait for a write's result before reading what it wrote.
 */
public final class StoreClient implements AutoCloseable {
    private final Connection connection;
    private final ClientSettings settings;

    private StoreClient(Connection connection, ClientSettings settings) {
        this.connection = connection;
        this.settings = settings;
    }

    /**
     * Connects and logs in.
     *
     * @throws StoreConnectException if the server cannot be reached
     * @throws StoreAuthException if it refuses the unit, user or password
     * @throws StoreClientException if the handshake fails otherwise
     */
    public static StoreClient connect(ClientSettings settings) {
        return new StoreClient(Connection.open(settings), settings);
    }

    /** Opens a backup stream (a lease): one object to write. */
    public BackupSession beginBackup() {
        long lease = await(connection.send(new Request.BeginBackup(),
                ReplyCollector.single("BEGIN_BACKUP", Reply.LeaseGranted.class, Reply.LeaseGranted::lease)));
        return new BackupSession(connection, lease);
    }

    /** The recipe of a committed object, or empty if there is no object of that name. */
    public Optional<Recipe> recipe(String objectName) {
        return await(connection.send(new Request.GetRecipe(objectName), ReplyCollector.recipe(objectName)));
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
        for (int from = 0; from < all.size(); from += connection.maxBatch()) {
            List<Fingerprint> batch = all.subList(from, Math.min(all.size(), from + connection.maxBatch()));
            parts.add(connection.send(new Request.GetChunks(batch), ReplyCollector.chunks(batch.size())));
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
        return await(connection.send(new Request.ListObjects(prefix), ReplyCollector.objects()));
    }

    /**
     * Deletes the objects whose names start with {@code prefix} (which must not be empty); their
     * chunks are reclaimed by the next gc. Returns how many objects were deleted.
     */
    public long deleteObjects(String prefix) {
        return await(connection.send(new Request.DeleteObjects(prefix),
                ReplyCollector.single("DELETE", Reply.Count.class, Reply.Count::count)));
    }

    /** Deletes exactly the object {@code objectName}; returns whether it existed. */
    public boolean deleteObject(String objectName) {
        return await(connection.send(new Request.DeleteObject(objectName),
                ReplyCollector.single("DELETE_OBJECT", Reply.Count.class, Reply.Count::count))) > 0;
    }

    public UnitStats stats() {
        return await(connection.send(new Request.GetStats(), ReplyCollector.single("STATS", Reply.Stats.class, Reply.Stats::stats)));
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
        return await(connection.send(new Request.ReplicationStatus(), ReplyCollector.replicationJobs()));
    }

    private void requireVersion(int version, String what) {
        if (connection.version() < version) {
            throw new StoreClientException("gpdedup-store at " + settings.host() + ":" + settings.port() + " speaks protocol version "
                    + connection.version() + ", " + what + " needs version " + version + ": upgrade the store");
        }
    }

    /** One round trip that touches nothing. */
    public void ping() {
        await(connection.send(new Request.Ping(), ReplyCollector.single("PING", Reply.Ok.class, ok -> null)));
    }

    /** The protocol version agreed in the handshake. */
    public int protocolVersion() {
        return connection.version();
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
        return connection.isOpen();
    }

    /** Closes the connection; requests in flight fail, open backup sessions are aborted by the server. */
    @Override
    public void close() {
        connection.close();
    }

    /** The result, or the failure as the {@link StoreClientException} it is. */
    static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreClientException("interrupted while waiting for gpdedup-store", e);
        } catch (ExecutionException e) {
            throw rethrowable(e.getCause());
        }
    }

    static RuntimeException rethrowable(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof RuntimeException r) {
            return r;
        }
        return new StoreClientException(String.valueOf(e.getMessage()), e);
    }
}
