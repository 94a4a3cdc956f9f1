package io.gpdedup.bench.runner;

import java.util.List;

/**
 * One live run of parallel streams: when it started (every stream released at once) and when each
 * stream finished, in wall-clock ms.
 *
 * @param group what ran in parallel, e.g. "10 threads" or "host 3"
 */
record StreamRun(String group, long startMs, List<Stream> streams) {
    /** One stream's bytes and end; {@code failure} is null when it succeeded. */
    public record Stream(String name, int group, long bytes, long endMs, String failure) {
        public double seconds(long startMs) {
            return Math.max(1, endMs - startMs) / 1000.0;
        }
    }

    public long bytes() {
        return streams.stream().mapToLong(Stream::bytes).sum();
    }

    long endMs() {
        return streams.stream().mapToLong(Stream::endMs).max().orElse(startMs);
    }

    public double seconds() {
        return Math.max(1, endMs() - startMs) / 1000.0;
    }

    /** Bytes per second of the whole run: all bytes over the time until the last stream ended. */
    double bytesPerSecond() {
        return bytes() / seconds();
    }

    /** Bytes per second of the streams of group {@code g} over the time until their last one ended. */
    double bytesPerSecond(int g) {
        long bytes = 0;
        long end = startMs;
        for (Stream s : streams) {
            if (s.group() == g) {
                bytes += s.bytes();
                end = Math.max(end, s.endMs());
            }
        }
        return bytes / (Math.max(1, end - startMs) / 1000.0);
    }

    public List<String> failures() {
        return streams.stream().filter(s -> s.failure() != null).map(s -> s.name() + ": " + s.failure()).toList();
    }
}
