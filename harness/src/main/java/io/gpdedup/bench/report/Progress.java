package io.gpdedup.bench.report;

import io.gpdedup.store.Terminal;
import java.time.temporal.ChronoUnit;
import me.tongfei.progressbar.ConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/**
 * A progress bar on stderr (never stdout, which carries the result table), drawn only when stderr
 * is a terminal: redrawn bars in a log file or a pipe are noise. Thread-safe: workers may
 * {@link #step} concurrently. Close it when the work ends; {@link #quiet} makes one that draws
 * nothing (tests, {@code --quiet}).
 */
public final class Progress implements AutoCloseable {
    private final ProgressBar bar;

    private Progress(ProgressBar bar) {
        this.bar = bar;
    }

    /** A bar counting {@code total} units of work (items, or bytes shown in MB with {@link #bytes}). */
    public static Progress start(String task, long total) {
        return Terminal.stderrIsTerminal() ? new Progress(builder(task, total).build()) : quiet();
    }

    /** A bar counting bytes, shown in MB with the speed in MB/s. */
    public static Progress bytes(String task, long totalBytes) {
        return Terminal.stderrIsTerminal()
                ? new Progress(builder(task, totalBytes).setUnit(" MB", 1024 * 1024).showSpeed().setSpeedUnit(ChronoUnit.SECONDS).build())
                : quiet();
    }

    /** A bar that draws nothing. */
    public static Progress quiet() {
        return new Progress(null);
    }

    public void step(long n) {
        if (bar != null) {
            bar.stepBy(n);
        }
    }

    void stepTo(long n) {
        if (bar != null) {
            bar.stepTo(n);
        }
    }

    /** Text after the bar, e.g. the phase or the current MB/s. */
    public void message(String text) {
        if (bar != null) {
            bar.setExtraMessage(" " + text); // the bar puts it right after the speed
        }
    }

    @Override
    public void close() {
        if (bar != null) {
            bar.close();
        }
    }

    private static ProgressBarBuilder builder(String task, long total) {
        return new ProgressBarBuilder().setTaskName(task).setInitialMax(total).setStyle(ProgressBarStyle.ASCII)
                .setUpdateIntervalMillis(250).setConsumer(new ConsoleProgressBarConsumer(System.err));
    }
}
