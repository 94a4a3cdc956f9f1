package io.gpdedup.store.cli;

import io.gpdedup.store.Terminal;
import java.io.PrintStream;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * A line on stderr that says a long admin request is still running and for how long, rewritten
 * each second; only when stderr is a terminal, so logs and pipes get nothing. When the server does
 * the work in one request the line shows time, not a share done; a command that does the work
 * itself says how far it is.
 */
final class AdminProgress implements AutoCloseable {
    private final ScheduledExecutorService ticker;
    private final PrintStream err;

    private AdminProgress(ScheduledExecutorService ticker, PrintStream err) {
        this.ticker = ticker;
        this.err = err;
    }

    static AdminProgress onTerminal(String what) {
        return onTerminal(what, () -> "running");
    }

    /** As {@link #onTerminal(String)}, the line saying {@code status} (how far the command is) instead of "running". */
    static AdminProgress onTerminal(String what, Supplier<String> status) {
        if (!Terminal.stderrIsTerminal()) {
            return new AdminProgress(null, null);
        }
        PrintStream err = System.err;
        long start = System.nanoTime();
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "progress");
            t.setDaemon(true);
            return t;
        });
        ticker.scheduleAtFixedRate(() -> err.print("\r" + what + ": " + status.get() + ", " + (System.nanoTime() - start) / 1_000_000_000L + " s "),
                1, 1, TimeUnit.SECONDS);
        return new AdminProgress(ticker, err);
    }

    @Override
    public void close() {
        if (ticker == null) {
            return;
        }
        ticker.shutdownNow();
        try {
            ticker.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        err.print("\r\033[K");
        err.flush();
    }
}
