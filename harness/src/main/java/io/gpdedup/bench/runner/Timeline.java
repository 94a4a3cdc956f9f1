package io.gpdedup.bench.runner;

import java.util.Arrays;

/**
 * Bytes per time bucket from a start instant (wall clock ms), for per-second graphs. Thread-safe.
 */
final class Timeline {
    private final long startMs;
    private final int bucketMs;
    private long[] buckets = new long[64];
    private int used;

    Timeline(long startMs, int bucketMs) {
        if (bucketMs < 1) {
            throw new IllegalArgumentException("bucket must be at least 1 ms");
        }
        this.startMs = startMs;
        this.bucketMs = bucketMs;
    }

    long startMs() {
        return startMs;
    }

    int bucketMs() {
        return bucketMs;
    }

    /** Counts {@code bytes} at wall-clock time {@code atMs}; times before the start go to the first bucket. */
    public synchronized void add(long atMs, long bytes) {
        int b = (int) Math.max(0, (atMs - startMs) / bucketMs);
        if (b >= buckets.length) {
            buckets = Arrays.copyOf(buckets, Math.max(b + 1, buckets.length * 2));
        }
        buckets[b] += bytes;
        used = Math.max(used, b + 1);
    }

    public synchronized long[] buckets() {
        return Arrays.copyOf(buckets, used);
    }

    /** Bytes per second in buckets of {@code widthMs} (a multiple of this timeline's bucket). */
    synchronized double[] ratePerSecond(int widthMs) {
        if (widthMs % bucketMs != 0) {
            throw new IllegalArgumentException(widthMs + " ms is not a multiple of the bucket " + bucketMs + " ms");
        }
        int k = widthMs / bucketMs;
        double[] out = new double[(used + k - 1) / k];
        for (int i = 0; i < used; i++) {
            out[i / k] += buckets[i];
        }
        for (int i = 0; i < out.length; i++) {
            out[i] = out[i] * 1000.0 / widthMs;
        }
        return out;
    }

    /** This timeline's buckets as one line: {@code startMs bucketMs b0 b1 ...}. */
    public synchronized String encode() {
        StringBuilder sb = new StringBuilder().append(startMs).append(' ').append(bucketMs);
        for (int i = 0; i < used; i++) {
            sb.append(' ').append(buckets[i]);
        }
        return sb.toString();
    }

    public static Timeline decode(String line) {
        String[] p = line.trim().split(" ");
        Timeline t = new Timeline(Long.parseLong(p[0]), Integer.parseInt(p[1]));
        for (int i = 2; i < p.length; i++) {
            t.add(t.startMs + (long) (i - 2) * t.bucketMs, Long.parseLong(p[i]));
        }
        return t;
    }
}
