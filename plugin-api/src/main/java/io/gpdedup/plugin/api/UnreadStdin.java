package io.gpdedup.plugin.api;

import java.io.InputStream;
import java.time.Duration;

/**
 * What a failed backup_data does with the rest of its stdin: gpbackup_helper keeps writing a
 * segment's tables into it, and a plugin that exits at once leaves the helper a broken pipe to die
 * of instead of the plugin's error line to log. So the stream is read and dropped, but only so much
 * and so long: at most {@link #MAX_BYTES} or {@link #MAX_TIME}, whichever ends first.
 */
final class UnreadStdin {
    static final long MAX_BYTES = 256L << 20;
    static final Duration MAX_TIME = Duration.ofSeconds(30);

    private UnreadStdin() {
    }

    /**
     * Reads {@code in} to its end or the bounds on a daemon thread, and returns when that is done or
     * the time is up (a read still blocked then ends when the call's streams are closed).
     */
    static void drain(InputStream in) {
        Thread reader = new Thread(() -> {
            byte[] buf = new byte[64 << 10];
            long total = 0;
            try {
                int n;
                while (total < MAX_BYTES && (n = in.read(buf, 0, buf.length)) >= 0) {
                    total += n;
                }
            } catch (java.io.IOException | RuntimeException e) {
                // stdin failed or was never there: nothing left to drain
            }
        }, "drain-stdin");
        reader.setDaemon(true);
        reader.start();
        try {
            reader.join(MAX_TIME.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
