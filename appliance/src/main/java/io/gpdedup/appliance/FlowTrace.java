package io.gpdedup.appliance;

import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * What the throttle let through, per flow and per {@value #BUCKET_MS} ms, as CSV: the appliance's
 * own throughput graph, free of the buffering in clients and sockets in front of it. A flow's rows
 * are written when it ends, labelled with its object name. Columns: {@code kind,flow,label,start_ms,bytes}
 * ({@code start_ms}: wall clock, ms since the Unix epoch, of the bucket's start).
 */
class FlowTrace implements AutoCloseable {
    static final int BUCKET_MS = 100;
    static final String HEADER = "kind,flow,label,start_ms,bytes";

    /** A trace that keeps nothing. */
    static final FlowTrace NONE = new FlowTrace();

    private final BufferedWriter out;
    private final long originNanos;
    private final long originMillis;
    private long nextFlow = 1;
    private boolean broken;

    private FlowTrace() {
        this.out = null;
        this.originNanos = 0;
        this.originMillis = 0;
    }

    private FlowTrace(BufferedWriter out, long originNanos, long originMillis) {
        this.out = out;
        this.originNanos = originNanos;
        this.originMillis = originMillis;
    }

    /** Starts a trace file (replacing one there) whose nanosecond clock reads {@code originNanos} now. */
    static FlowTrace open(Path file, long originNanos) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        w.write(HEADER);
        w.newLine();
        w.flush();
        return new FlowTrace(w, originNanos, System.currentTimeMillis());
    }

    /** One flow's bytes per bucket. */
    static final class Series {
        final FlowScheduler.Kind kind;
        final long id;
        private long[] buckets = new long[64];
        private int used;

        private Series(FlowScheduler.Kind kind, long id) {
            this.kind = kind;
            this.id = id;
        }
    }

    Series series(FlowScheduler.Kind kind) {
        if (out == null) {
            return null;
        }
        synchronized (this) {
            return new Series(kind, nextFlow++);
        }
    }

    /** Spreads {@code bytes} moved evenly over [{@code fromNanos}, {@code toNanos}). */
    void record(Series s, long fromNanos, long toNanos, long bytes) {
        if (s == null || bytes <= 0) {
            return;
        }
        long bucketNanos = BUCKET_MS * 1_000_000L;
        long from = Math.max(0, fromNanos - originNanos);
        long to = Math.max(from + 1, toNanos - originNanos);
        long first = from / bucketNanos;
        long last = (to - 1) / bucketNanos;
        long left = bytes;
        for (long b = first; b <= last; b++) {
            long overlap = Math.min(to, (b + 1) * bucketNanos) - Math.max(from, b * bucketNanos);
            long part = b == last ? left : Math.round((double) bytes * overlap / (to - from));
            part = Math.min(part, left);
            add(s, (int) b, part);
            left -= part;
        }
    }

    private static void add(Series s, int bucket, long bytes) {
        if (bucket >= s.buckets.length) {
            s.buckets = Arrays.copyOf(s.buckets, Math.max(bucket + 1, 2 * s.buckets.length));
        }
        s.buckets[bucket] += bytes;
        s.used = Math.max(s.used, bucket + 1);
    }

    /** Writes the flow's rows. A trace that cannot be written is given up (with a warning), never the backup. */
    void finish(Series s, String label, long totalBytes) {
        if (s == null) {
            return;
        }
        String kind = s.kind.name().toLowerCase(java.util.Locale.ROOT);
        String quoted = csv(label);
        synchronized (this) {
            if (broken) {
                return;
            }
            try {
                for (int b = 0; b < s.used; b++) {
                    if (s.buckets[b] != 0) {
                        out.write(kind + "," + s.id + "," + quoted + "," + (originMillis + (long) b * BUCKET_MS) + "," + s.buckets[b]);
                        out.newLine();
                    }
                }
                out.flush();
            } catch (IOException e) {
                broken = true;
                System.getLogger(FlowTrace.class.getName()).log(System.Logger.Level.WARNING,
                        "appliance trace: cannot write, no more rows: " + e.getMessage());
            }
        }
    }

    private static String csv(String s) {
        if (s.indexOf(',') < 0 && s.indexOf('"') < 0 && s.indexOf('\n') < 0) {
            return s;
        }
        return '"' + s.replace("\"", "\"\"") + '"';
    }

    @Override
    public synchronized void close() {
        if (out != null) {
            try {
                out.close();
            } catch (IOException e) {
                System.getLogger(FlowTrace.class.getName()).log(System.Logger.Level.WARNING,
                        "appliance trace: cannot close: " + e.getMessage());
            }
        }
    }
}
