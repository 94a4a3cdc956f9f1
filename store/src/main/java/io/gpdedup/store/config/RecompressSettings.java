package io.gpdedup.store.config;

import java.time.Duration;
import java.util.Objects;

/**
 * How the store recompresses what backups wrote, by itself, once they are over (docs/store.md,
 * Recompression).
 *
 * @param level zstd level the store re-encodes chunks at (1..19); 0: never
 * @param afterIdle how long no backup must have been running before it starts
 * @param threads containers recompressed at once
 */
public record RecompressSettings(int level, Duration afterIdle, int threads) {
    /** Half the cores: the other half stay free for restores, which do not pause it. */
    static final int DEFAULT_THREADS = Math.max(1, Runtime.getRuntime().availableProcessors() / 2);
    public static final RecompressSettings DEFAULT = new RecompressSettings(9, Duration.ofSeconds(30), DEFAULT_THREADS);

    public RecompressSettings {
        Objects.requireNonNull(afterIdle, "afterIdle");
        if (level < 0 || level > 19) {
            throw new IllegalArgumentException("recompress-level must be 1..19 (0 = off), not " + level);
        }
        if (threads < 1 || threads > 256) {
            throw new IllegalArgumentException("recompress-threads must be 1..256, not " + threads);
        }
        if (afterIdle.isNegative()) {
            throw new IllegalArgumentException("recompress-after-idle-seconds must not be negative");
        }
    }

    public boolean enabled() {
        return level > 0;
    }
}
