package io.gpdedup.client;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.wire.Batches;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * One object being written (a lease on the server). Requests may be pipelined: the server carries
 * out a session's requests in the order they were sent, so {@code put} then {@code commit} need no
 * wait in between; {@code commit} completes only once the object is durable. Chunks reported
 * present by {@link #missing} stay protected from garbage collection until the session ends.
 * Closing without a commit abandons the object: nothing becomes visible.
 *
 * <p>{@link #store} writes a stream that outlives a broken connection and a restarted store (with
 * the client's reconnect timeout): a batch counts as stored only once the store has it on disk
 * (SYNC, protocol version 3), so its caller keeps its bytes until then; when the connection breaks,
 * the session opens a new lease on a new connection, asks about every chunk of the batches stored
 * so far (which pins them again) and stores the unfinished batches again (docs/protocol.md
 * section 3.5). {@link #commit} then also survives a lost answer.
 *
 * <p>A store whose SYNC keeps chunks only in a spool that dies with its host (a bucket unit,
 * protocol version 7) loses them to a standby that takes the unit over. With {@link #retainUpTo}
 * the session keeps the uploads it put there until a SYNC with the uploaded flag confirms them in
 * the bucket, sent each time half the bound more is retained; the store then lacking them gets them
 * again. A stream waits only when the whole bound is retained, or its room is full, and that SYNC
 * has not answered.
 *
 * <p>Calls from several threads are safe, but their order is then whatever order they reach the
 * socket in.
 */
public final class BackupSession implements AutoCloseable {
    private static final byte[] NO_HASH = new byte[Fingerprint.LENGTH];
    /** Fingerprints asked about at once when a new lease pins what the old one had stored. */
    static final int REASK_GROUP = 1 << 16;

    /** A lease and the connection it is valid on. */
    record ConnectionLease(Connection connection, long id) {
    }

    private final StoreClient client;
    private final Object lock = new Object();
    private ConnectionLease lease; // guarded by lock; null while a new one is being opened
    private CompletableFuture<ConnectionLease> renewal; // guarded by lock
    private StoreClientException failure; // guarded by lock: the session cannot go on
    /**
     * The fingerprints of the batches {@link #store} completed, each batch's 32 bytes a chunk back to
     * back: a backup of millions of chunks keeps them for as long as it runs (as its recipe, which
     * can share the arrays).
     */
    private final List<byte[]> stored = new ArrayList<>(); // guarded by lock
    private int leases = 1; // guarded by lock
    private final RetainedChunks retained = new RetainedChunks(); // guarded by lock
    private long retainLimit; // guarded by lock
    private CompletableFuture<Void> uploading; // guarded by lock: the SYNC that will let retained uploads go
    private long sinceUploaded; // guarded by lock: bytes retained since the last uploaded SYNC was sent
    private final LongAdder triedAgain = new LongAdder();
    private volatile boolean ended;

    BackupSession(StoreClient client, ConnectionLease lease) {
        this.client = client;
        this.lease = lease;
    }

    static CompletableFuture<ConnectionLease> begin(Connection c) {
        return c.send(new Request.BeginBackup(), ReplyCollector.single("BEGIN_BACKUP", Reply.LeaseGranted.class, Reply.LeaseGranted::lease))
                .thenApply(id -> new ConnectionLease(c, id));
    }

    /** The id of the current lease (a new one after the connection was replaced); -1 while it is being replaced. */
    long leaseId() {
        synchronized (lock) {
            return lease == null ? -1 : lease.id();
        }
    }

    /** Where a session counts the bytes it retains: a process's memory budget. */
    public interface Room {
        /** Counts nothing: every take succeeds. */
        Room UNCOUNTED = new Room() {
            @Override
            public boolean take(long bytes) {
                return true;
            }

            @Override
            public void giveBack(long bytes) {
            }
        };

        /** Whether {@code bytes} more may be held now; never waits. */
        boolean take(long bytes);

        void giveBack(long bytes);
    }

    /**
     * Keeps up to {@code bytes} of payloads stored at a store whose SYNC leaves them in its host's
     * spool, to send them again to a store that took the unit over (0: none, a failover then fails
     * a backup that stored new chunks), each batch counted in {@code room}. A batch the room has no
     * space for is covered by an uploaded SYNC at once, and its {@link #store} waits for it. Call
     * before the first {@link #store}; {@link #close} gives everything back.
     */
    public void retainUpTo(long bytes, Room room) {
        if (bytes < 0) {
            throw new IllegalArgumentException("retained bytes must not be negative: " + bytes);
        }
        synchronized (lock) {
            retainLimit = bytes;
            retained.countIn(room);
        }
    }

    /** Leases this session has used: 1, plus one for each time its connection was replaced. */
    public int leases() {
        synchronized (lock) {
            return leases;
        }
    }

    /**
     * Whether a commit on this session needs the stream SHA-256 in its recipe: the store speaks a
     * protocol version before 5, which records no recipe without one. From version 5 on the chunk
     * list SHA-256 suffices ({@link Recipe#ofChunks}).
     */
    public boolean needsStreamSha256() {
        synchronized (lock) {
            return (lease == null ? client.protocolVersion() : lease.connection().version()) < ProtocolVersions.V5;
        }
    }

    /** Batches, commits and other steps done again on a new lease after the connection was lost. */
    public long triedAgain() {
        return triedAgain.sum();
    }

    /** For each fingerprint, whether the store lacks it (and so it must be put). */
    public CompletableFuture<boolean[]> missing(Fingerprint[] fingerprints) {
        checkOpen();
        List<Fingerprint> all = List.of(fingerprints);
        return now().thenCompose(l -> missingOn(l, all));
    }

    /**
     * Uploads chunks, split into as many PUT_CHUNKS requests as the server's frame and batch limits
     * need. The payload arrays are sent as they are: do not change them until the future completes.
     *
     * @throws IllegalArgumentException if one chunk alone is larger than a frame
     */
    public CompletableFuture<Void> put(List<ChunkUpload> chunks) {
        checkOpen();
        ConnectionLease l;
        synchronized (lock) {
            l = lease;
        }
        if (l == null) {
            return now().thenCompose(next -> putOn(next, chunks));
        }
        return putOn(l, chunks);
    }

    /** The stage of a backup that makes the uploads of the chunks of a batch the store reported missing. */
    @FunctionalInterface
    public interface Uploads {
        /**
         * The uploads of the chunks {@code missing} marks (true = the store lacks it), in the batch's
         * order; asked again, with a new answer, for each new lease the batch is stored on.
         */
        CompletableFuture<List<ChunkUpload>> forMissing(boolean[] missing);
    }

    /**
     * Stores one batch: asks which of {@code fingerprints} (the chunks' SHA-256s, 32 bytes each back
     * to back) the store lacks, has {@code uploads} make the uploads of exactly those, puts them, and
     * completes once the store holds every chunk of the batch on disk. If the connection breaks
     * first, it does all of that again on a new lease, asking {@code uploads} again: keep the batch's
     * bytes until the future completes. The session keeps {@code fingerprints} (not a copy) to ask
     * about them again on a later lease, and a backup's recipe can keep the same array: do not
     * change it.
     */
    public CompletableFuture<Void> store(byte[] fingerprints, Uploads uploads) {
        if (fingerprints.length % Fingerprint.LENGTH != 0) {
            throw new IllegalArgumentException("fingerprints are " + Fingerprint.LENGTH + " bytes each, not " + fingerprints.length + " bytes in all");
        }
        checkOpen();
        return retrying(l -> missingOn(l, unpack(List.of(fingerprints))).thenCompose(uploads::forMissing)
                .thenCompose(up -> putOn(l, up).thenCompose(v -> durableOn(l)).thenCompose(v -> confirm(l, fingerprints, up))));
    }

    /**
     * Makes the object visible under {@code objectName} with this recipe; completes once the
     * server has made it durable. Ends the session whatever the outcome. A long recipe travels in
     * several frames. When the connection breaks before the answer, the commit is made again on a
     * new lease unless the store already holds the object as this recipe says.
     */
    public CompletableFuture<Void> commit(String objectName, Recipe recipe) {
        checkOpen();
        ended = true;
        AtomicBoolean sent = new AtomicBoolean();
        return retrying(l -> {
            if (!sent.getAndSet(true)) {
                return commitOn(l, objectName, recipe);
            }
            // The answer to the earlier commit was lost, not necessarily the commit.
            return StoreClient.recipeOn(l.connection(), objectName).thenCompose(found -> sameRecipe(found, recipe)
                    ? CompletableFuture.<Void>completedFuture(null) : commitOn(l, objectName, recipe));
        });
    }

    /** Abandons the object: nothing it wrote becomes visible. Ends the session. */
    public CompletableFuture<Void> abort() {
        if (ended) {
            return CompletableFuture.completedFuture(null);
        }
        ended = true;
        ConnectionLease l;
        synchronized (lock) {
            l = lease;
        }
        if (l == null) {
            // Being replaced: the server aborts the leases of lost connections by itself.
            return CompletableFuture.completedFuture(null);
        }
        return l.connection().send(new Request.Abort(l.id()), ok("ABORT"));
    }

    /** Aborts unless committed or aborted already; waits for the server's answer. */
    @Override
    public void close() {
        ConnectionLease l;
        synchronized (lock) {
            l = lease;
            retained.dropThrough(retained.mark());
        }
        if (!ended && l != null && l.connection().isOpen()) {
            StoreClient.await(abort());
        }
        ended = true;
    }

    private CompletableFuture<boolean[]> missingOn(ConnectionLease l, List<Fingerprint> all) {
        if (all.isEmpty()) {
            return CompletableFuture.completedFuture(new boolean[0]);
        }
        List<CompletableFuture<boolean[]>> parts = new ArrayList<>();
        int maxBatch = l.connection().maxBatch();
        for (int from = 0; from < all.size(); from += maxBatch) {
            List<Fingerprint> batch = all.subList(from, Math.min(all.size(), from + maxBatch));
            int expected = batch.size();
            parts.add(l.connection().send(new Request.Missing(l.id(), batch), ReplyCollector.single("MISSING", Reply.MissingBitmap.class, r -> {
                if (r.missing().length != expected) {
                    throw new StoreClientException("asked about " + expected + " fingerprints, got " + r.missing().length + " answers");
                }
                return r.missing();
            })));
        }
        if (parts.size() == 1) {
            return parts.get(0);
        }
        return CompletableFuture.allOf(parts.toArray(new CompletableFuture<?>[0])).thenApply(v -> {
            boolean[] missing = new boolean[all.size()];
            int at = 0;
            for (CompletableFuture<boolean[]> p : parts) {
                boolean[] b = p.join();
                System.arraycopy(b, 0, missing, at, b.length);
                at += b.length;
            }
            return missing;
        });
    }

    private static CompletableFuture<Void> putOn(ConnectionLease l, List<ChunkUpload> chunks) {
        if (chunks.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        Connection c = l.connection();
        int fixed = FrameCodec.frameLength(Frame.of(0, new Request.PutChunks(l.id(), List.of())));
        List<List<ChunkUpload>> batches = Batches.split(chunks, Request.PutChunks::entrySize, fixed, c.maxFrame(), c.maxBatch());
        List<CompletableFuture<Void>> sent = new ArrayList<>(batches.size());
        for (List<ChunkUpload> batch : batches) {
            sent.add(c.send(new Request.PutChunks(l.id(), batch), ok("PUT_CHUNKS")));
        }
        return sent.size() == 1 ? sent.get(0) : CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
    }

    /**
     * Completes once what the lease put or was told is present is on disk. Sent after those answers
     * came, so SYNC, which runs at once, covers them. Before protocol version 3 there is no such
     * promise before the commit: a batch then counts as stored once put.
     */
    private static CompletableFuture<Void> durableOn(ConnectionLease l) {
        if (l.connection().version() < ProtocolVersions.V3) {
            return CompletableFuture.completedFuture(null);
        }
        return l.connection().send(new Request.Sync(), ok("SYNC"));
    }

    /**
     * Counts the batch as stored and retains its uploads where the store keeps them only in its
     * spool; completes at once, or once the uploaded SYNC answers when the whole bound is retained.
     */
    private CompletableFuture<Void> confirm(ConnectionLease l, byte[] packed, List<ChunkUpload> up) {
        Runnable send = null;
        CompletableFuture<Void> wait = CompletableFuture.completedFuture(null);
        synchronized (lock) {
            if (lease != l) {
                // The lease was replaced meanwhile and asked only about what was stored before: once more on the new one.
                throw new StoreConnectionLostException("the backup lease was replaced while a batch was being stored");
            }
            stored.add(packed);
            if (retainLimit == 0 || !l.connection().syncSpoolOnly()) {
                return wait;
            }
            long before = retained.bytes();
            boolean counted = retained.add(up);
            sinceUploaded += retained.bytes() - before;
            // Half the bound since the last one, not half retained: what came in during an upload would make the next one early.
            if (!counted || uploading == null && sinceUploaded > 0 && sinceUploaded >= retainLimit / 2) {
                send = uploaded(l);
            }
            if (uploading != null && (!counted || retained.bytes() >= retainLimit)) {
                wait = uploading;
            }
        }
        // Sent outside the lock: a write may wait for the socket, and the reader thread takes the lock.
        if (send != null) {
            send.run();
        }
        return wait;
    }

    /**
     * What asks the store to put every chunk it holds in the bucket, then lets go of the batches
     * retained so far, all put and acknowledged before; called under the lock, run after it. A
     * failure lets go of nothing: the broken connection's reconnect sends them again. Several may
     * be in flight: each lets go of its own.
     */
    private Runnable uploaded(ConnectionLease l) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        long mark = retained.mark();
        uploading = done;
        sinceUploaded = 0;
        return () -> l.connection().send(new Request.Sync(true), ok("SYNC")).whenComplete((v, e) -> {
            synchronized (lock) {
                if (e == null) {
                    retained.dropThrough(mark);
                }
                if (uploading == done) {
                    uploading = null;
                }
            }
            done.complete(null);
        });
    }

    private CompletableFuture<Void> commitOn(ConnectionLease l, String objectName, Recipe recipe) {
        Connection c = l.connection();
        int commitFixed = FrameCodec.frameLength(Frame.of(0, new Request.Commit(l.id(), objectName, 0, NO_HASH, List.of(), NO_HASH)));
        int appendFixed = FrameCodec.frameLength(Frame.of(0, new Request.AppendRecipe(l.id(), List.of())));
        int perFrame = (c.maxFrame() - Math.max(commitFixed, appendFixed)) / FrameCodec.REF_SIZE;
        if (perFrame < 1) {
            throw new IllegalArgumentException("object name too long for the server's max frame length " + c.maxFrame());
        }
        List<ChunkRef> refs = recipe.chunks();
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        int from = 0;
        while (refs.size() - from > perFrame) {
            sent.add(c.send(new Request.AppendRecipe(l.id(), refs.subList(from, from + perFrame)), ok("APPEND_RECIPE")));
            from += perFrame;
        }
        if (recipe.streamSha256() == null && c.version() < ProtocolVersions.V5) {
            // Zero bytes would be taken for the stream's hash and fail every later verify and old restore.
            throw new StoreClientException("gpdedup-store at " + client.address() + " speaks protocol version " + c.version()
                    + ", which records no object without its stream SHA-256; " + objectName + " needs version 5: upgrade the store");
        }
        // A server before version 4 would refuse the digest as bytes after the body; it keeps the stream hash alone.
        byte[] listed = c.version() >= ProtocolVersions.V4 ? recipe.chunkListSha256() : null;
        sent.add(c.send(new Request.Commit(l.id(), objectName, recipe.totalLength(), recipe.streamSha256(),
                refs.subList(from, refs.size()), listed), ok("COMMIT " + objectName)));
        return sent.size() == 1 ? sent.get(0) : CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
    }

    private static boolean sameRecipe(Optional<Recipe> found, Recipe recipe) {
        return found.isPresent() && found.get().totalLength() == recipe.totalLength()
                && Arrays.equals(found.get().streamSha256(), recipe.streamSha256()) && found.get().chunks().equals(recipe.chunks());
    }

    /** Runs {@code attempt} on the current lease and, while the client may retry, again on each new one. */
    private <T> CompletableFuture<T> retrying(Function<ConnectionLease, CompletableFuture<T>> attempt) {
        return now().thenCompose(l -> attemptOn(l, attempt, 0));
    }

    private <T> CompletableFuture<T> attemptOn(ConnectionLease l, Function<ConnectionLease, CompletableFuture<T>> attempt, long firstFailure) {
        CompletableFuture<T> tried;
        try {
            tried = attempt.apply(l);
        } catch (RuntimeException e) {
            tried = CompletableFuture.failedFuture(e);
        }
        return tried.handle((v, e) -> {
            if (e == null) {
                return CompletableFuture.completedFuture(v);
            }
            Throwable cause = Futures.cause(e);
            long first = firstFailure == 0 ? System.nanoTime() : firstFailure;
            if (!client.mayRetry(cause, first)) {
                return CompletableFuture.<T>failedFuture(cause);
            }
            triedAgain.increment();
            return renew(l, cause, first).thenCompose(next -> attemptOn(next, attempt, first));
        }).thenCompose(f -> f);
    }

    /** The current lease, or the one being opened. */
    private CompletableFuture<ConnectionLease> now() {
        synchronized (lock) {
            if (failure != null) {
                return CompletableFuture.failedFuture(failure);
            }
            return lease != null ? CompletableFuture.completedFuture(lease) : renewal;
        }
    }

    /**
     * The lease that replaces {@code broken}: the current one if that is another, else a new one on
     * a new connection that has been asked about every chunk stored so far. Shared by every request
     * that failed with {@code broken}.
     */
    private CompletableFuture<ConnectionLease> renew(ConnectionLease broken, Throwable why, long firstFailure) {
        synchronized (lock) {
            if (failure != null) {
                return CompletableFuture.failedFuture(failure);
            }
            if (lease != null && lease != broken) {
                return CompletableFuture.completedFuture(lease);
            }
            if (renewal == null) {
                lease = null;
                CompletableFuture<ConnectionLease> next = client.reconnect(broken.connection(), why)
                        .thenCompose(c -> client.call(this::reopen, c, firstFailure))
                        .handle(this::renewed);
                renewal = next.isDone() ? null : next;
                return next;
            }
            return renewal;
        }
    }

    private ConnectionLease renewed(ConnectionLease next, Throwable e) {
        synchronized (lock) {
            renewal = null;
            if (e == null) {
                lease = next;
                leases++;
                return next;
            }
            RuntimeException cause = StoreClient.rethrowable(e);
            failure = cause instanceof StoreClientException c ? c : new StoreClientException(String.valueOf(cause.getMessage()), cause);
            throw new CompletionException(failure);
        }
    }

    /**
     * A new lease on {@code c}, asked about every chunk of the batches stored so far: present, they
     * are pinned again; missing, the store lost what it had confirmed (or a collection removed it
     * while no lease held it), and the stream cannot be completed.
     */
    private CompletableFuture<ConnectionLease> reopen(Connection c) {
        return begin(c).thenCompose(next -> {
            List<byte[]> batches;
            synchronized (lock) {
                batches = List.copyOf(stored);
            }
            return stillHeld(next, batches, 0);
        });
    }

    /**
     * Asks {@code next} about the stored batches from {@code from} on, {@link #REASK_GROUP}
     * fingerprints at a time, so that a long backup's reconnect never holds them all as objects.
     */
    private CompletableFuture<ConnectionLease> stillHeld(ConnectionLease next, List<byte[]> batches, int from) {
        if (from == batches.size()) {
            return CompletableFuture.completedFuture(next);
        }
        int end = groupEnd(batches, from, REASK_GROUP);
        List<Fingerprint> group = unpack(batches.subList(from, end));
        return missingOn(next, group).thenCompose(missing -> {
            Set<Fingerprint> lost = new LinkedHashSet<>();
            for (int i = 0; i < missing.length; i++) {
                if (missing[i]) {
                    lost.add(group.get(i));
                }
            }
            if (lost.isEmpty()) {
                return stillHeld(next, batches, end);
            }
            List<ChunkUpload> again;
            synchronized (lock) {
                again = retained.take(lost);
            }
            if (!lost.isEmpty()) {
                throw new StoreClientException("gpdedup-store at " + next.connection().peer() + " no longer holds " + lost.size() + " chunks ("
                        + lost.iterator().next() + (lost.size() > 1 ? ", ..." : "")
                        + ") stored for this backup before the connection was lost; run the backup again");
            }
            // The store that took the unit over lacks what the lost one kept in its spool: sent again from what was retained.
            triedAgain.increment();
            return putOn(next, again).thenCompose(v -> durableOn(next)).thenCompose(v -> stillHeld(next, batches, end));
        });
    }

    /** The fingerprints packed in {@code batches}, in order. */
    private static List<Fingerprint> unpack(List<byte[]> batches) {
        List<Fingerprint> all = new ArrayList<>();
        for (byte[] packed : batches) {
            for (int at = 0; at < packed.length; at += Fingerprint.LENGTH) {
                all.add(Fingerprint.of(packed, at));
            }
        }
        return all;
    }

    /**
     * The end of the group of whole batches from {@code from} on that holds at most {@code max}
     * fingerprints, or just the batch at {@code from} when that alone holds more.
     */
    static int groupEnd(List<byte[]> batches, int from, int max) {
        int to = from;
        long fingerprints = 0;
        while (to < batches.size() && (to == from || fingerprints + batches.get(to).length / Fingerprint.LENGTH <= max)) {
            fingerprints += batches.get(to++).length / Fingerprint.LENGTH;
        }
        return to;
    }

    private void checkOpen() {
        if (ended) {
            throw new IllegalStateException("backup session has ended (committed or aborted)");
        }
    }

    private static ReplyCollector<Void> ok(String what) {
        return ReplyCollector.single(what, Reply.Ok.class, r -> null);
    }
}
