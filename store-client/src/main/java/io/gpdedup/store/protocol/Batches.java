package io.gpdedup.store.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.function.ToIntFunction;

/** Splits a list of entries into runs that each fit one frame. */
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
        int start = 0;
        long length = fixedLength;
        for (int i = 0; i < items.size(); i++) {
            int size = entrySize.applyAsInt(items.get(i));
            if (fixedLength + (long) size > maxFrameLength) {
                throw new IllegalArgumentException("entry " + i + " (" + size + " bytes) does not fit in a frame of at most "
                        + maxFrameLength + " bytes");
            }
            if (length + size > maxFrameLength || i - start >= maxCount) {
                runs.add(items.subList(start, i));
                start = i;
                length = fixedLength;
            }
            length += size;
        }
        runs.add(items.subList(start, items.size()));
        return runs;
    }
}
