package io.gpdedup.protocol.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

/** Splits a list of entries into runs that each fit one frame: the one cutting rule of requests and replies. */
public final class Batches {
    private Batches() {
    }

    /**
     * Consecutive runs of {@code items}, in order, each with at most {@code maxCount} entries and
     * with {@code fixedLength} plus the sizes of its entries at most {@code maxFrameLength}. An empty
     * list gives one empty run, so that a request is still sent.
     *
     * @param fixedLength the frame length of the message with no entries
     * @throws IllegalArgumentException if one entry alone does not fit
     */
    public static <T> List<List<T>> split(List<T> items, ToIntFunction<T> entrySize, int fixedLength, int maxFrameLength, int maxCount) {
        List<List<T>> runs = new ArrayList<>();
        Cutter<T> cutter = new Cutter<>(entrySize, fixedLength, maxFrameLength, maxCount, runs::add);
        for (T item : items) {
            cutter.add(item);
        }
        runs.add(cutter.last());
        return runs;
    }

    /**
     * The same cut for entries given one at a time: a run goes to {@code full} as soon as the next
     * entry would not fit in it, so a long list never waits whole in memory.
     */
    public static final class Cutter<T> {
        private final ToIntFunction<T> entrySize;
        private final int fixedLength;
        private final int maxFrameLength;
        private final int maxCount;
        private final Consumer<List<T>> full;
        private List<T> run = new ArrayList<>();
        private long length;
        private int added;

        /** As {@link Batches#split}; {@code full} takes each full run, in order. */
        public Cutter(ToIntFunction<T> entrySize, int fixedLength, int maxFrameLength, int maxCount, Consumer<List<T>> full) {
            this.entrySize = entrySize;
            this.fixedLength = fixedLength;
            this.maxFrameLength = maxFrameLength;
            this.maxCount = maxCount;
            this.full = full;
            this.length = fixedLength;
        }

        /** @throws IllegalArgumentException if the entry alone does not fit */
        public void add(T item) {
            int size = entrySize.applyAsInt(item);
            if (fixedLength + (long) size > maxFrameLength) {
                throw new IllegalArgumentException("entry " + added + " (" + size + " bytes) does not fit in a frame of at most "
                        + maxFrameLength + " bytes");
            }
            if (length + size > maxFrameLength || run.size() >= maxCount) {
                full.accept(run);
                run = new ArrayList<>();
                length = fixedLength;
            }
            run.add(item);
            length += size;
            added++;
        }

        /** The run being filled, the last one: what was added since the last full run (possibly nothing). */
        public List<T> last() {
            return run;
        }
    }
}
