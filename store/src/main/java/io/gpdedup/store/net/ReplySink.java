package io.gpdedup.store.net;

import io.gpdedup.protocol.wire.Reply;
import java.util.concurrent.CompletionStage;

/** Where a request's replies go: one final reply, or a split reply ending in one. */
interface ReplySink {
    void last(Reply reply);

    /**
     * Sends {@code reply} frame by frame as the client reads them, after any split reply of the same
     * connection still being sent; returns at once. The stage completes once the final frame has
     * been handed to {@link #last}, or once the connection is gone; exceptionally if producing a
     * frame failed without an answer.
     */
    CompletionStage<Void> split(SplitReply<?> reply);
}
