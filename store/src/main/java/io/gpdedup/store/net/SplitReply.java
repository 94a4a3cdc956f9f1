package io.gpdedup.store.net;

import io.gpdedup.protocol.wire.Reply;
import io.gpdedup.protocol.wire.ReplyParts;
import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * A reply of several frames, produced one frame at a time on an engine thread when the connection
 * can take the next one: between two frames no thread waits for the client, and entries not sent
 * yet (chunks above all) are not read yet.
 */
final class SplitReply<E> {
    private final Reply.ListPart<E> template;
    private final int maxFrame;
    private final Iterable<? extends E> source;
    private final ArrayDeque<Reply> full = new ArrayDeque<>();
    private ReplyParts<E> parts;
    private Iterator<? extends E> entries;
    private boolean finished;

    /**
     * @param template the reply whose fixed fields every frame repeats
     * @param source the list, each entry fetched (read, for a chunk) only when its frame is being filled
     */
    SplitReply(Reply.ListPart<E> template, int maxFrame, Iterable<? extends E> source) {
        this.template = template;
        this.maxFrame = maxFrame;
        this.source = source;
        restart();
    }

    /** Drops what was produced: the next {@link #next} starts from the first entry again. */
    void restart() {
        full.clear();
        parts = new ReplyParts<>(template, maxFrame, full::add);
        entries = source.iterator();
        finished = false;
    }

    /** The next frame's reply: a part (sent with MORE) until {@link #finished}, then the final one. */
    Reply next() {
        while (full.isEmpty() && entries.hasNext()) {
            parts.add(entries.next());
        }
        if (!full.isEmpty()) {
            return full.poll();
        }
        finished = true;
        return parts.last();
    }

    /** Whether {@link #next} returned the final reply. */
    boolean finished() {
        return finished;
    }
}
