package io.gpdedup.store.server;

import io.gpdedup.store.protocol.Reply;

/** Where a request's replies go: parts of a split reply, then exactly one final reply. */
interface ReplySink {
    /**
     * Sends a non-final part and returns once it is written, so a long reply is produced no faster
     * than the client reads it.
     *
     * @throws java.io.UncheckedIOException if the connection is gone or the client stopped reading
     */
    void part(Reply reply);

    void last(Reply reply);
}
