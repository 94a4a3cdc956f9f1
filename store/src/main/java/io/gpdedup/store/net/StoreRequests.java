package io.gpdedup.store.net;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.ProtocolVersions;
import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.Request;
import io.gpdedup.store.auth.Role;
import io.gpdedup.store.auth.UnitPolicy;
import io.gpdedup.store.engine.StoreException;
import io.gpdedup.store.jobs.AutoCollector;
import io.gpdedup.store.metrics.StoreMetrics;
import io.gpdedup.store.recipe.ObjectExistsException;
import io.gpdedup.store.recipe.ObjectsLockedException;
import io.gpdedup.store.recipe.RecipeCatalog;
import io.gpdedup.store.replication.ReplicationQueue;
import io.gpdedup.store.replication.ReplicationRefusedException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * Serves one request of an authenticated session against its storage unit: the store's business
 * logic, with no Netty and no bytes (replies go to a {@link ReplySink}). Runs on the engine
 * executor, never on an event loop.
 */
public final class StoreRequests {
    private static final System.Logger LOG = System.getLogger(StoreRequests.class.getName());
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final StoreMetrics metrics;
    private final Executor executor;
    private final int maxFrame;
    private final int maxBatch;
    private final Reply.Settings settings;
    private final ReplicationQueue replication;
    private final AutoCollector collector;
    private final Function<String, UnitPolicy> policies;

    StoreRequests(StoreMetrics metrics, Executor executor, int maxFrame, int maxBatch, Duration idleTimeout, ReplicationQueue replication,
            AutoCollector collector, Function<String, UnitPolicy> policies) {
        this.metrics = metrics;
        this.executor = executor;
        this.maxFrame = maxFrame;
        this.maxBatch = maxBatch;
        this.settings = new Reply.Settings(Math.min(0xffffffffL, idleTimeout.toSeconds()));
        this.replication = replication;
        this.collector = collector;
        this.policies = policies;
    }

    /** Serves {@code request}; the stage completes once its final reply has been handed to {@code out}. */
    CompletionStage<Void> serve(StoreSession session, Request request, ReplySink out) {
        try {
            return dispatch(session, request, out);
        } catch (RuntimeException e) {
            out.last(errorFor(e, request, session.version));
            return DONE;
        }
    }

    private CompletionStage<Void> dispatch(StoreSession s, Request request, ReplySink out) {
        // Looked up per request, so that a reload that takes a right away takes it from open connections too.
        Role role = policies.apply(s.unit.name()).roleOf(s.user);
        if (!role.permits(request.type())) {
            throw new ForbiddenException(who(s, role) + ", which may not " + request.type() + ": that needs the "
                    + Role.needed(request.type()).word() + " role");
        }
        switch (request.type()) {
            case BEGIN_BACKUP:
                out.last(new Reply.LeaseGranted(s.open().id));
                return DONE;
            case MISSING:
                missing(s, (Request.Missing) request, out);
                return DONE;
            case PUT_CHUNKS:
                put(s, (Request.PutChunks) request, out);
                return DONE;
            case APPEND_RECIPE: {
                var a = (Request.AppendRecipe) request;
                s.get(a.lease()).append(a.refs());
                out.last(new Reply.Ok());
                return DONE;
            }
            case COMMIT:
                return commit(s, (Request.Commit) request, out);
            case ABORT:
                s.release(s.take(((Request.Abort) request).lease()));
                out.last(new Reply.Ok());
                return DONE;
            case GET_RECIPE:
                return recipe(s, ((Request.GetRecipe) request).objectName(), out);
            case GET_CHUNKS:
                return chunks(s, ((Request.GetChunks) request).fingerprints(), out);
            case LIST:
                return sendParts(new Reply.ObjectsPart(s.unit.list(((Request.ListObjects) request).prefix()), s.version >= ProtocolVersions.V6), out);
            case DELETE: {
                var d = (Request.DeleteObjects) request;
                if (d.prefix().isEmpty()) {
                    throw new BadRequestException("refusing to delete every object of the unit: give a prefix");
                }
                checkBypass(s, role, d.bypassGovernance());
                deleted(s, "prefix " + d.prefix(), s.unit.deleteObjects(d.prefix(), d.bypassGovernance()), out);
                return DONE;
            }
            case DELETE_OBJECT: {
                var d = (Request.DeleteObject) request;
                checkBypass(s, role, d.bypassGovernance());
                deleted(s, "name " + d.objectName(), s.unit.deleteObject(d.objectName(), d.bypassGovernance()), out);
                return DONE;
            }
            case STATS:
                out.last(new Reply.Stats(s.unit.stats()));
                return DONE;
            case VERIFY:
                out.last(fitted(s.unit.verify()));
                return DONE;
            case GC:
                out.last(new Reply.GcResult(collector.collect(s.unit.name(), "asked by user '" + s.user + "'")));
                return DONE;
            case PING:
                out.last(new Reply.Ok());
                return DONE;
            case SYNC:
                return answerWhenDone(((Request.Sync) request).uploaded() ? s.unit.syncUploaded() : s.unit.sync(), request, s.version, out);
            case SETTINGS:
                // Version 7 tells whether SYNC alone leaves chunks on this host only.
                out.last(s.unit != null && s.version >= ProtocolVersions.V7 && s.unit.syncSpoolOnly()
                        ? new Reply.Settings(settings.idleTimeoutSeconds(), true) : settings);
                return DONE;
            case REPLICATE:
                out.last(new Reply.ReplicationQueued(replicate(s, (Request.Replicate) request)));
                return DONE;
            case REPLICATION_STATUS:
                return sendParts(new Reply.ReplicationJobsPart(replication.jobs(s.unit.name())), out);
            default:
                throw new IllegalStateException(request.type() + " is not a store request");
        }
    }

    private static void checkBypass(StoreSession s, Role role, boolean bypassGovernance) {
        if (bypassGovernance && !role.mayBypassGovernance()) {
            throw new ForbiddenException(who(s, role) + ": only the admin role may bypass governance retention locks");
        }
    }

    /** "user 'backup' has the backup role in unit 'prod'", or "... has no role in ...". */
    private static String who(StoreSession s, Role role) {
        return "user '" + s.user + "' has " + (role == Role.UNASSIGNED ? "no role" : "the " + role.word() + " role") + " in unit '"
                + s.unit.name() + "'";
    }

    /** Answers a delete, logs it (a bypassed lock as a warning) and plans the collection that frees its space. */
    private void deleted(StoreSession s, String what, RecipeCatalog.Deleted d, ReplySink out) {
        if (d.locksBypassed() > 0) {
            LOG.log(System.Logger.Level.WARNING, "unit " + s.unit.name() + ": user '" + s.user + "' deleted " + d.objects() + " objects (" + what
                    + "), bypassing the governance retention locks of " + d.locksBypassed());
        } else {
            LOG.log(System.Logger.Level.INFO, "unit " + s.unit.name() + ": user '" + s.user + "' deleted " + d.objects() + " objects (" + what + ")");
        }
        collector.deleted(s.unit.name(), d.objects());
        out.last(new Reply.Count(d.objects()));
    }

    private void checkBatch(int n) {
        if (n > maxBatch) {
            throw new BadRequestException("batch of " + n + " entries is above the server's max batch " + maxBatch);
        }
    }

    private void missing(StoreSession s, Request.Missing m, ReplySink out) {
        checkBatch(m.fingerprints().size());
        OpenBackupLease l = s.get(m.lease());
        boolean[] missing = l.lease.missing(m.fingerprints().toArray(new Fingerprint[0]));
        if (missing.length != m.fingerprints().size()) {
            throw new IllegalStateException("engine answered " + missing.length + " of " + m.fingerprints().size() + " fingerprints");
        }
        int n = 0;
        for (boolean b : missing) {
            n += b ? 1 : 0;
        }
        metrics.lookups(missing.length, n);
        out.last(new Reply.MissingBitmap(missing));
    }

    private void put(StoreSession s, Request.PutChunks p, ReplySink out) {
        checkBatch(p.chunks().size());
        OpenBackupLease l = s.get(p.lease());
        for (int i = 0; i < p.chunks().size(); i++) {
            ChunkUpload c = p.chunks().get(i);
            try {
                l.lease.put(c.fingerprint(), c.codec(), c.rawLength(), c.payload());
            } catch (StoreException e) {
                throw new StoreException("chunk " + i + " (" + c.fingerprint() + "): " + e.getMessage(), e);
            }
            metrics.chunkPut(c.rawLength(), c.payloadLength());
        }
        out.last(new Reply.Ok());
    }

    private CompletionStage<Void> commit(StoreSession s, Request.Commit c, ReplySink out) {
        OpenBackupLease l = s.take(c.lease());
        CompletableFuture<Void> durable;
        try {
            Recipe recipe;
            try {
                recipe = new Recipe(l.refsWith(c.refs()), c.totalLength(), c.streamSha256(), c.chunkListSha256());
            } catch (IllegalArgumentException e) {
                throw new BadRequestException("recipe of " + c.objectName() + ": " + e.getMessage());
            }
            durable = l.lease.commit(c.objectName(), recipe, policies.apply(s.unit.name()).commits());
        } catch (RuntimeException e) {
            s.release(l);
            throw e;
        }
        return durable.handleAsync((v, e) -> {
            try {
                s.release(l);
            } catch (RuntimeException closeFailure) {
                LOG.log(System.Logger.Level.WARNING, "closing committed lease " + l.id + " failed", closeFailure);
            }
            if (e == null) {
                metrics.committed(c.totalLength());
                out.last(new Reply.Ok());
            } else {
                out.last(errorFor(Futures.cause(e), c, s.version));
            }
            return null;
        }, executor);
    }

    /** OK once {@code work} has completed, or its error. */
    private CompletionStage<Void> answerWhenDone(CompletableFuture<Void> work, Request request, int version, ReplySink out) {
        return work.handleAsync((v, e) -> {
            out.last(e == null ? new Reply.Ok() : errorFor(Futures.cause(e), request, version));
            return null;
        }, executor);
    }

    private CompletionStage<Void> recipe(StoreSession s, String name, ReplySink out) {
        Optional<Recipe> found = s.unit.recipe(name);
        if (found.isEmpty()) {
            out.last(new Reply.NotFound());
            return DONE;
        }
        Recipe r = found.get();
        if (r.streamSha256() == null && s.version < ProtocolVersions.V4) {
            throw new BadRequestException(name + " was backed up without a stream SHA-256, which a client of protocol version "
                    + s.version + " needs to check a restore: restore it with a newer plugin");
        }
        // An older client would take the digest for bytes after the body: it only goes to those that know it.
        byte[] listed = s.version >= ProtocolVersions.V4 ? r.chunkListSha256() : null;
        return sendParts(new Reply.RecipePart(r.totalLength(), r.streamSha256(), r.chunks(), listed), out);
    }

    /** The chunks, each read only when the frame it goes in is being filled. */
    private CompletionStage<Void> chunks(StoreSession s, List<Fingerprint> fingerprints, ReplySink out) {
        checkBatch(fingerprints.size());
        int room = maxFrame - FrameCodec.frameLength(Frame.of(0, new Reply.ChunksPart(List.of())));
        Iterable<StoredChunk> read = () -> fingerprints.stream().map(fp -> {
            StoredChunk c;
            try {
                c = s.unit.read(fp);
            } catch (StoreException e) {
                throw new StoreException("chunk " + fp + ": " + e.getMessage(), e);
            }
            int size = new Reply.ChunksPart(List.of()).entrySize(c);
            if (size > room) {
                throw new StoreException("chunk " + fp + " (" + size + " bytes) does not fit in a frame of " + maxFrame + " bytes");
            }
            metrics.chunkRead(c.payload().length);
            return c;
        }).iterator();
        return out.split(new SplitReply<>(new Reply.ChunksPart(List.of()), maxFrame, read));
    }

    /** Queues the copy of a backup of the session's unit; refuses one with nothing to copy. */
    private long replicate(StoreSession s, Request.Replicate r) {
        if (r.sourcePrefix().isEmpty() || r.target().prefix().isEmpty() || r.target().host().isEmpty()) {
            throw new BadRequestException("REPLICATE needs a source prefix, a remote host and a target prefix");
        }
        if (s.unit.list(r.sourcePrefix()).isEmpty()) {
            throw new BadRequestException("no objects under '" + r.sourcePrefix() + "' in unit '" + s.unit.name() + "' to replicate");
        }
        return replication.enqueue(s.unit.name(), r.sourcePrefix(), r.target(), r.password());
    }

    /** A list as a reply of as many frames (MORE) as it needs. */
    private <E> CompletionStage<Void> sendParts(Reply.ListPart<E> whole, ReplySink out) {
        return out.split(new SplitReply<>(whole, maxFrame, whole.entries()));
    }

    /** The verify report, its lists cut (saying so) until it fits in one frame. */
    private Reply.VerifyResult fitted(VerifyReport r) {
        Reply.VerifyResult reply = new Reply.VerifyResult(r);
        int keep = Math.max(r.damagedObjects().size(), r.problems().size());
        while (FrameCodec.frameLength(Frame.of(0, reply)) > maxFrame && keep > 0) {
            keep /= 2;
            List<String> damaged = r.damagedObjects().subList(0, Math.min(keep, r.damagedObjects().size()));
            List<String> problems = new ArrayList<>(r.problems().subList(0, Math.min(keep, r.problems().size())));
            int left = r.damagedObjects().size() - damaged.size() + r.problems().size() - problems.size();
            problems.add("... and " + left + " more damaged objects and problems not shown: run verify on the server host");
            reply = new Reply.VerifyResult(new VerifyReport(r.chunksChecked(), r.bytesChecked(), r.objectsChecked(), damaged, problems));
        }
        return reply;
    }

    /** The error reply for {@code e}; a code newer than the connection's {@code version} goes out as STORE_ERROR. */
    static Reply.Error errorFor(Throwable e, Request request, int version) {
        Reply.Error error = errorFor(e, request);
        return error.code().sinceVersion() <= version ? error : new Reply.Error(ErrorCode.STORE_ERROR, error.message());
    }

    private static Reply.Error errorFor(Throwable e, Request request) {
        if (e instanceof ObjectsLockedException) {
            return new Reply.Error(ErrorCode.LOCKED, message(e));
        }
        if (e instanceof ObjectExistsException) {
            return new Reply.Error(ErrorCode.EXISTS, message(e));
        }
        if (e instanceof ForbiddenException || e instanceof ReplicationRefusedException) {
            return new Reply.Error(ErrorCode.FORBIDDEN, message(e));
        }
        if (e instanceof StoreException) {
            return new Reply.Error(ErrorCode.STORE_ERROR, message(e));
        }
        if (e instanceof BadRequestException || e instanceof IllegalArgumentException) {
            return new Reply.Error(ErrorCode.BAD_REQUEST, message(e));
        }
        LOG.log(System.Logger.Level.ERROR, "serving " + request.type() + " failed", e);
        String what = e instanceof OutOfMemoryError ? "the server ran out of memory" : e instanceof Error ? "a fault in the server" : message(e);
        return new Reply.Error(ErrorCode.INTERNAL, request.type() + " failed in the server (" + what + "); the store's log has the cause");
    }

    private static String message(Throwable e) {
        String m = e.getMessage();
        return m == null ? e.toString() : m;
    }
}
