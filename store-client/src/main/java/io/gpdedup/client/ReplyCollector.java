package io.gpdedup.client;

import io.gpdedup.protocol.model.ChunkList;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.wire.Frame;
import io.gpdedup.protocol.wire.ReplicationJobStatus;
import io.gpdedup.protocol.wire.Reply;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

/**
 * Turns the reply frame(s) of one request into its result. ERROR frames never get here: the
 * connection fails the future with them.
 */
abstract class ReplyCollector<T> {
    final CompletableFuture<T> future = new CompletableFuture<>();
    final String what;
    /** Whether the read timeout applies (not to verify and gc, which may legitimately run long). */
    final boolean timed;
    volatile long sentAtNanos;

    ReplyCollector(String what, boolean timed) {
        this.what = what;
        this.timed = timed;
    }

    /** Takes a reply frame; returns true once the result is complete (the future is then completed). */
    abstract boolean accept(Frame frame);

    StoreClientException unexpected(Frame frame) {
        return new StoreClientException("server answered " + what + " with " + frame.type() + (frame.more() ? " (part)" : ""));
    }

    /** Exactly one frame of type {@code type}, mapped to the result. */
    static <R extends Reply, T> ReplyCollector<T> single(String what, Class<R> type, Function<R, T> result) {
        return single(what, type, result, true);
    }

    static <R extends Reply, T> ReplyCollector<T> single(String what, Class<R> type, Function<R, T> result, boolean timed) {
        return new ReplyCollector<>(what, timed) {
            @Override
            boolean accept(Frame frame) {
                if (frame.more() || !type.isInstance(frame.message())) {
                    future.completeExceptionally(unexpected(frame));
                } else {
                    try {
                        future.complete(result.apply(type.cast(frame.message())));
                    } catch (RuntimeException e) {
                        future.completeExceptionally(e);
                    }
                }
                return true;
            }
        };
    }

    static ReplyCollector<List<StoredChunk>> chunks(int expected) {
        return new ReplyCollector<>("GET_CHUNKS", true) {
            private final List<StoredChunk> chunks = new ArrayList<>(expected);

            @Override
            boolean accept(Frame frame) {
                if (!(frame.message() instanceof Reply.ChunksPart part)) {
                    future.completeExceptionally(unexpected(frame));
                    return true;
                }
                chunks.addAll(part.chunks());
                if (frame.more()) {
                    return false;
                }
                if (chunks.size() != expected) {
                    future.completeExceptionally(new StoreClientException("asked for " + expected + " chunks, got " + chunks.size()));
                } else {
                    future.complete(chunks);
                }
                return true;
            }
        };
    }

    static ReplyCollector<Optional<Recipe>> recipe(String name) {
        return new ReplyCollector<>("GET_RECIPE " + name, true) {
            private final ChunkList.Builder refs = new ChunkList.Builder();

            @Override
            boolean accept(Frame frame) {
                if (frame.message() instanceof Reply.NotFound && !frame.more() && refs.size() == 0) {
                    future.complete(Optional.empty());
                    return true;
                }
                if (!(frame.message() instanceof Reply.RecipePart part)) {
                    future.completeExceptionally(unexpected(frame));
                    return true;
                }
                refs.addAll(part.refs());
                if (frame.more()) {
                    return false;
                }
                try {
                    future.complete(Optional.of(new Recipe(refs.build(), part.totalLength(), part.streamSha256(), part.chunkListSha256())));
                } catch (IllegalArgumentException e) {
                    future.completeExceptionally(new StoreClientException("server sent an inconsistent recipe for " + name + ": " + e.getMessage()));
                }
                return true;
            }
        };
    }

    static ReplyCollector<List<ObjectInfo>> objects() {
        return parts("LIST", Reply.ObjectsPart.class, Reply.ObjectsPart::objects);
    }

    static ReplyCollector<List<ReplicationJobStatus>> replicationJobs() {
        return parts("REPLICATION_STATUS", Reply.ReplicationJobsPart.class, Reply.ReplicationJobsPart::jobs);
    }

    /** A list split over frames with MORE: the entries of every part, in order. */
    private static <P extends Reply, E> ReplyCollector<List<E>> parts(String what, Class<P> type, Function<P, List<E>> entries) {
        return new ReplyCollector<>(what, true) {
            private final List<E> all = new ArrayList<>();

            @Override
            boolean accept(Frame frame) {
                if (!type.isInstance(frame.message())) {
                    future.completeExceptionally(unexpected(frame));
                    return true;
                }
                all.addAll(entries.apply(type.cast(frame.message())));
                if (frame.more()) {
                    return false;
                }
                future.complete(all);
                return true;
            }
        };
    }
}
