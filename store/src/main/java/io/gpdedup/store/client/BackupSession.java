package io.gpdedup.store.client;

import io.gpdedup.store.Fingerprint;
import io.gpdedup.store.engine.ChunkRef;
import io.gpdedup.store.engine.Recipe;
import io.gpdedup.store.protocol.Batches;
import io.gpdedup.store.protocol.ChunkUpload;
import io.gpdedup.store.protocol.Frame;
import io.gpdedup.store.protocol.FrameCodec;
import io.gpdedup.store.protocol.Reply;
import io.gpdedup.store.protocol.Request;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One object being written (a lease on the server). Requests may be pipelined: the server carries
 * out a session's requests in the order they were sent, so {@code put} then {@code commit} need no
 * wait in between; {@code commit} completes only once the object is durable. Chunks reported
 * present by {@link #missing} stay protected from garbage collection until the session ends.
 * Closing without a commit abandons the object: nothing becomes visible.
 *
 * <p>Calls from several threads are safe, but their order is then whatever order they reach the
 * socket in.
 */
public final class BackupSession implements AutoCloseable {
    private static final byte[] NO_HASH = new byte[Fingerprint.LENGTH];

    private final Connection connection;
    private final long lease;
    private volatile boolean ended;

    BackupSession(Connection connection, long lease) {
        this.connection = connection;
        this.lease = lease;
    }

    public long leaseId() {
        return lease;
    }

    /** For each fingerprint, whether the store lacks it (and so it must be put). */
    public CompletableFuture<boolean[]> missing(Fingerprint[] fingerprints) {
        checkOpen();
        List<Fingerprint> all = Arrays.asList(fingerprints.clone());
        if (all.isEmpty()) {
            return CompletableFuture.completedFuture(new boolean[0]);
        }
        List<CompletableFuture<boolean[]>> parts = new ArrayList<>();
        for (int from = 0; from < all.size(); from += connection.maxBatch()) {
            List<Fingerprint> batch = all.subList(from, Math.min(all.size(), from + connection.maxBatch()));
            int expected = batch.size();
            parts.add(connection.send(new Request.Missing(lease, batch), ReplyCollector.single("MISSING", Reply.MissingBitmap.class, r -> {
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

    /**
     * Uploads chunks, split into as many PUT_CHUNKS requests as the server's frame and batch limits
     * need. The payload arrays are sent as they are: do not change them until the future completes.
     *
     * @throws IllegalArgumentException if one chunk alone is larger than a frame
     */
    public CompletableFuture<Void> put(List<ChunkUpload> chunks) {
        checkOpen();
        if (chunks.isEmpty()) {
            return CompletableFuture.completedFuture(null);
        }
        int fixed = FrameCodec.frameLength(Frame.of(0, new Request.PutChunks(lease, List.of())));
        List<List<ChunkUpload>> batches = Batches.split(chunks, FrameCodec::uploadSize, fixed, connection.maxFrame(), connection.maxBatch());
        List<CompletableFuture<Void>> sent = new ArrayList<>(batches.size());
        for (List<ChunkUpload> batch : batches) {
            sent.add(connection.send(new Request.PutChunks(lease, batch), ok("PUT_CHUNKS")));
        }
        return sent.size() == 1 ? sent.get(0) : CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
    }

    /**
     * Makes the object visible under {@code objectName} with this recipe; completes once the
     * server has made it durable. Ends the session whatever the outcome. A long recipe travels in
     * several frames.
     */
    public CompletableFuture<Void> commit(String objectName, Recipe recipe) {
        checkOpen();
        ended = true;
        int commitFixed = FrameCodec.frameLength(Frame.of(0, new Request.Commit(lease, objectName, 0, NO_HASH, List.of())));
        int appendFixed = FrameCodec.frameLength(Frame.of(0, new Request.AppendRecipe(lease, List.of())));
        int perFrame = (connection.maxFrame() - Math.max(commitFixed, appendFixed)) / FrameCodec.REF_SIZE;
        if (perFrame < 1) {
            throw new IllegalArgumentException("object name too long for the server's max frame length " + connection.maxFrame());
        }
        List<ChunkRef> refs = recipe.chunks();
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        int from = 0;
        while (refs.size() - from > perFrame) {
            sent.add(connection.send(new Request.AppendRecipe(lease, refs.subList(from, from + perFrame)), ok("APPEND_RECIPE")));
            from += perFrame;
        }
        sent.add(connection.send(new Request.Commit(lease, objectName, recipe.totalLength(), recipe.streamSha256(),
                refs.subList(from, refs.size())), ok("COMMIT " + objectName)));
        return sent.size() == 1 ? sent.get(0) : CompletableFuture.allOf(sent.toArray(new CompletableFuture<?>[0]));
    }

    /** Abandons the object: nothing it wrote becomes visible. Ends the session. */
    public CompletableFuture<Void> abort() {
        if (ended) {
            return CompletableFuture.completedFuture(null);
        }
        ended = true;
        return connection.send(new Request.Abort(lease), ok("ABORT"));
    }

    /** Aborts unless committed or aborted already; waits for the server's answer. */
    @Override
    public void close() {
        if (!ended && connection.isOpen()) {
            StoreClient.await(abort());
        }
        ended = true;
    }

    private void checkOpen() {
        if (ended) {
            throw new IllegalStateException("backup session " + lease + " has ended (committed or aborted)");
        }
    }

    private static ReplyCollector<Void> ok(String what) {
        return ReplyCollector.single(what, Reply.Ok.class, r -> null);
    }
}
