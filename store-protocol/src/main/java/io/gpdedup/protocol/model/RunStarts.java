package io.gpdedup.protocol.model;

/**
 * Where runs laid end to end begin (the chunks of a stream, the rows of a table): {@code starts[i]}
 * is the first position of run {@code i} and {@code starts[n]} the end of the last of {@code n}
 * runs, so {@code starts} is never shorter than 1.
 */
public final class RunStarts {
    private RunStarts() {
    }

    /**
     * The run holding position {@code pos}: the last {@code i} below {@code n} with
     * {@code starts[i] <= pos}, or 0 when there is none (a position before the first run, or no runs).
     */
    public static int runAt(long[] starts, long pos) {
        int lo = 0;
        int hi = starts.length - 2;
        while (lo < hi) {
            int mid = (lo + hi + 1) >>> 1;
            if (starts[mid] <= pos) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return lo;
    }
}
