package io.gpdedup.protocol.wire;

import java.util.List;
import java.util.function.Consumer;

/**
 * Cuts a list reply into frames of at most the connection's frame length ({@link Batches.Cutter}):
 * every part but the last goes out (with MORE) as soon as it is full, so a long list of chunks read
 * one by one never waits whole in memory.
 */
public final class ReplyParts<E> {
    private final Reply.ListPart<E> template;
    private final Batches.Cutter<E> cutter;

    /**
     * @param template the reply whose fixed fields every part repeats (its own entries are ignored)
     * @param full takes each full part, in order; the caller sends it with MORE
     */
    public ReplyParts(Reply.ListPart<E> template, int maxFrame, Consumer<Reply> full) {
        this.template = template;
        int fixed = FrameCodec.frameLength(Frame.of(0, template.with(List.of())));
        this.cutter = new Batches.Cutter<>(template::entrySize, fixed, maxFrame, Integer.MAX_VALUE, run -> full.accept(template.with(run)));
    }

    /** The whole list as parts: all but the last for {@code full}, the last returned. */
    public static <E> Reply split(Reply.ListPart<E> whole, int maxFrame, Consumer<Reply> full) {
        ReplyParts<E> parts = new ReplyParts<>(whole, maxFrame, full);
        for (E e : whole.entries()) {
            parts.add(e);
        }
        return parts.last();
    }

    /** @throws IllegalArgumentException if the entry alone does not fit in a frame */
    public void add(E entry) {
        cutter.add(entry);
    }

    /** The last part: what was added since the last full one (possibly nothing). */
    public Reply last() {
        return template.with(cutter.last());
    }
}
