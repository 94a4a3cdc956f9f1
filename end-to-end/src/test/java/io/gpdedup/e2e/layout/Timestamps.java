package io.gpdedup.e2e.layout;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Hands out distinct timestamps, so tests sharing one store never share a backup. Steps of 10 leave
 * each timestamp's neighbours free for tests about T and T+1.
 */
public final class Timestamps {
    private final AtomicLong next = new AtomicLong(100_000);

    /** A real-looking one: {@code 20261123hhmmss}-shaped. */
    public Timestamp next() {
        return new Timestamp("20261123" + String.format("%06d", step()));
    }

    /** The shape plugin_test.sh uses: {@code 99999999999999 - random}, so its date is not a calendar date. */
    public Timestamp nextPluginTestStyle() {
        return new Timestamp("99999998" + String.format("%06d", step()));
    }

    private long step() {
        long v = next.getAndAdd(10);
        if (v > 999_989) {
            throw new IllegalStateException("out of timestamps");
        }
        return v;
    }
}
