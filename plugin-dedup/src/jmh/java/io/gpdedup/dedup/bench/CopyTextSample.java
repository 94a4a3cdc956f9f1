package io.gpdedup.dedup.bench;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Rows like those of a PostgreSQL COPY-text stream (id, timestamp, numeric, a short status and a
 * longer note of words), so that the codecs see data that compresses about as a table does, not
 * random bytes, which no codec shrinks.
 */
final class CopyTextSample {
    private static final String[] STATUS = {"new", "paid", "shipped", "returned", "cancelled"};
    private static final String[] WORDS = {"order", "customer", "delivery", "express", "warehouse", "gift", "fragile", "north", "south",
        "priority", "invoice", "pending", "window", "door", "call", "before", "after", "noon", "leave", "neighbour"};

    private CopyTextSample() {
    }

    /** {@code size} bytes of rows, the same for the same seed. */
    static byte[] of(int size, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder s = new StringBuilder(size + 256);
        long id = 1;
        while (s.length() < size) {
            s.append(id++).append('\t').append("2026-").append(1 + r.nextInt(12)).append('-').append(1 + r.nextInt(28)).append(' ')
                    .append(r.nextInt(24)).append(':').append(r.nextInt(60)).append(':').append(r.nextInt(60)).append('\t')
                    .append(r.nextInt(100_000)).append('.').append(r.nextInt(100)).append('\t').append(STATUS[r.nextInt(STATUS.length)])
                    .append('\t');
            if (r.nextInt(40) == 0) {
                s.append("\\N");
            } else {
                for (int w = 3 + r.nextInt(12); w > 0; w--) {
                    s.append(WORDS[r.nextInt(WORDS.length)]).append(w > 1 ? " " : "");
                }
            }
            s.append('\n');
        }
        byte[] b = s.toString().getBytes(StandardCharsets.US_ASCII);
        return java.util.Arrays.copyOf(b, size);
    }
}
