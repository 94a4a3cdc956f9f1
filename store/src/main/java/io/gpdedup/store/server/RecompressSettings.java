package io.gpdedup.store.server;

import java.time.Duration;
import java.util.Objects;

/**
 * How the store recompresses what backups wrote, by itself, once they are over (docs/store.md,
 * Recompression).
 *
 * @param level zstd level the store re-encodes chunks at (1..19); 0: never
 * @param afterIdle how long no backup must have been running before it starts
 */
record RecompressSettings(int level, Duration afterIdle) {
    public static final RecompressSettings DEFAULT = new RecompressSettings(9, Duration.ofSeconds(30));

    public RecompressSettings {
        Objects.requireNonNull(afterIdle, "afterIdle");
        if (level < 0 || level > 19) {
            throw new IllegalArgumentException("recompress-level must be 1..19 (0 = off), not " + level);
        }
        if (afterIdle.isNegative()) {
            throw new IllegalArgumentException("recompress-after-idle-seconds must not be negative");
        }
    }

    boolean enabled() {
        return level > 0;
    }
}
