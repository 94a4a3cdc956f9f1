package io.gpdedup.store.jobs;

import io.gpdedup.store.config.RecompressSettings;
import io.gpdedup.store.engine.Recompression;
import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.engine.StoreEngine;
import io.gpdedup.store.engine.StoreException;
import io.gpdedup.store.metrics.StoreMetrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Recompresses, container by container, what backups wrote, once no backup has run for the
 * configured quiet time: backups compress as cheaply as they can, and the store wins the bytes
 * back at a higher zstd level while the hosts are idle. It stops between two chunks as soon as a
 * backup begins, and goes on from the same container at the next quiet time. It runs on
 * {@code threads} threads, each on a container of its own. A unit whose recompression failed, or
 * found no room for a copy, is left alone for a while rather than tried again every second.
 */
public final class IdleRecompressor implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(IdleRecompressor.class.getName());
    private static final long TICK_MILLIS = 1000;
    /** After a failure or a full disk, a unit is left alone this long instead of being tried again every tick. */
    private static final long BACKOFF_NANOS = TimeUnit.MINUTES.toNanos(5);

    private final StoreEngine engine;
    private final RecompressSettings settings;
    private final StoreMetrics metrics;
    private final ScheduledThreadPoolExecutor thread;
    private final ExecutorService workers;
    private final int threads;
    private volatile boolean closing;
    private long quietSinceNanos = System.nanoTime(); // confined to the thread
    /** Units left alone until the given nano time. */
    private final Map<String, Long> backOff = new ConcurrentHashMap<>();

    public IdleRecompressor(StoreEngine engine, RecompressSettings settings, StoreMetrics metrics) {
        this.engine = engine;
        this.settings = settings;
        this.metrics = metrics;
        this.threads = settings.threads();
        this.thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "store-recompress");
            t.setDaemon(true);
            return t;
        });
        this.workers = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "store-recompress-worker");
            t.setDaemon(true);
            t.setPriority(Thread.MIN_PRIORITY);
            return t;
        });
        thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        thread.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        metrics.recompressionPending(this::pending);
        if (settings.enabled()) {
            thread.scheduleWithFixedDelay(this::tick, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
        }
    }

    /** Containers of every unit still waiting to be recompressed. */
    private long pending() {
        if (!settings.enabled()) {
            return 0;
        }
        long n = 0;
        for (String name : engine.unitNames()) {
            n += engine.unit(name).recompressionPending();
        }
        return n;
    }

    private boolean quiet() {
        return !closing && metrics.activeLeases() == 0;
    }

    private void tick() {
        long now = System.nanoTime();
        if (!quiet()) {
            quietSinceNanos = now;
            return;
        }
        if (now - quietSinceNanos < settings.afterIdle().toNanos()) {
            return;
        }
        List<Callable<Void>> each = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            each.add(() -> {
                for (String name : engine.unitNames()) {
                    Long until = backOff.get(name);
                    if (until != null && System.nanoTime() - until < 0) {
                        continue;
                    }
                    try {
                        recompress(name, engine.unit(name));
                    } catch (StoreException e) {
                        leaveAlone(name);
                        LOG.log(System.Logger.Level.WARNING, "unit " + name + ": recompression stopped for 5 minutes: " + e.getMessage());
                    } catch (RuntimeException e) {
                        leaveAlone(name);
                        LOG.log(System.Logger.Level.ERROR, "unit " + name + ": recompression stopped for 5 minutes", e);
                    }
                }
                return null;
            });
        }
        try {
            workers.invokeAll(each);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    private void recompress(String name, StorageUnit unit) {
        while (quiet() && unit.recompressionPending() > 0) {
            Recompression r = unit.recompressNext(settings.level(), this::quiet);
            metrics.recompressed(r);
            switch (r.outcome()) {
                case REWRITTEN -> LOG.log(System.Logger.Level.INFO, "unit " + name + ": container " + r.container()
                        + " recompressed at zstd level " + settings.level() + ": " + r.bytesBefore() + " -> " + r.bytesAfter() + " bytes");
                case DAMAGED -> LOG.log(System.Logger.Level.WARNING, "unit " + name + ": container " + r.container()
                        + " left as it is: a record in it fails its checks (run verify)");
                case NO_ROOM -> {
                    leaveAlone(name);
                    LOG.log(System.Logger.Level.WARNING, "unit " + name + ": container " + r.container()
                            + " not recompressed: no room on disk for its copy; trying again in 5 minutes");
                }
                default -> { }
            }
            if (!r.settled()) {
                return;
            }
        }
    }

    /** Left alone for {@link #BACKOFF_NANOS} after a failure or a full disk. */
    private void leaveAlone(String unit) {
        backOff.put(unit, System.nanoTime() + BACKOFF_NANOS);
    }

    /** Stops between two chunks; waits for that. */
    @Override
    public void close() {
        closing = true;
        thread.shutdown();
        workers.shutdown();
        try {
            if (!thread.awaitTermination(1, TimeUnit.MINUTES) || !workers.awaitTermination(1, TimeUnit.MINUTES)) {
                LOG.log(System.Logger.Level.WARNING, "recompression still running after a minute; stopping anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
