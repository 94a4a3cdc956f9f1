package io.gpdedup.store.log;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Logs what the server refused or closed (connections over a limit, connections that did not log
 * in, throttled logins) as one line per burst: the first refusal starts a window, and at its end
 * one line counts everything refused in it, by reason and address. A flood of a million
 * connections makes a line every few seconds, not a million lines.
 */
public final class RefusalLog {
    private static final System.Logger LOG = System.getLogger(RefusalLog.class.getName());
    static final long WINDOW_SECONDS = 5;
    private static final int MAX_ENTRIES = 8;

    private final ScheduledExecutorService scheduler;
    private final Map<String, Integer> counts = new LinkedHashMap<>(); // guarded by this
    private boolean scheduled; // guarded by this

    public RefusalLog(ScheduledExecutorService scheduler) {
        this.scheduler = scheduler;
    }

    /** Counts one refusal: {@code what} names the reason (and the limit), without the address. */
    public void note(String what, InetAddress from) {
        synchronized (this) {
            counts.merge(what + " from " + from.getHostAddress(), 1, Integer::sum);
            if (scheduled) {
                return;
            }
            scheduled = true;
        }
        try {
            scheduler.schedule(this::flush, WINDOW_SECONDS, TimeUnit.SECONDS);
        } catch (RejectedExecutionException stopping) {
            flush();
        }
    }

    /** Logs what was counted since the last line, if anything (also called when the server stops). */
    public void flush() {
        StringBuilder line = new StringBuilder();
        synchronized (this) {
            scheduled = false;
            if (counts.isEmpty()) {
                return;
            }
            int shown = 0;
            for (Map.Entry<String, Integer> e : counts.entrySet()) {
                if (shown == MAX_ENTRIES) {
                    line.append("; and ").append(counts.size() - shown).append(" more reasons or addresses");
                    break;
                }
                line.append(shown == 0 ? "" : "; ").append(e.getValue()).append(' ').append(e.getKey());
                shown++;
            }
            counts.clear();
        }
        LOG.log(System.Logger.Level.WARNING, "refused in the last " + WINDOW_SECONDS + " s: " + line);
    }
}
