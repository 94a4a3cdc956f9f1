package io.gpdedup.store.jobs;

import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.store.engine.StoreEngine;
import io.gpdedup.store.engine.StoreException;
import io.gpdedup.store.metrics.StoreMetrics;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Collects a unit's garbage without an operator: a quiet time after its last delete (so a run of
 * {@code delete_backup} calls costs one collection), later while backup streams are open, but
 * never later than the maximum delay after the first delete it covers; and, if configured, every
 * unit on a fixed period. It runs the same
 * collection as {@code gpdedup-store gc}, which keeps every chunk an open backup may still use, so
 * it is safe while backups run. One thread: collections of different units never overlap.
 */
public final class AutoCollector implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(AutoCollector.class.getName());

    private record Pending(long firstDeleteNanos, ScheduledFuture<?> run) {
    }

    private final StoreEngine engine;
    private final GcSchedule schedule;
    private final StoreMetrics metrics;
    private final ScheduledThreadPoolExecutor thread;
    private final Map<String, Pending> pending = new HashMap<>(); // guarded by this

    public AutoCollector(StoreEngine engine, GcSchedule schedule, StoreMetrics metrics) {
        this.engine = engine;
        this.schedule = schedule;
        this.metrics = metrics;
        this.thread = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "store-gc");
            t.setDaemon(true);
            return t;
        });
        // A stop lets a running collection finish but starts no waiting one.
        thread.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        thread.setContinueExistingPeriodicTasksAfterShutdownPolicy(false);
        if (!schedule.interval().isZero()) {
            long period = schedule.interval().toNanos();
            thread.scheduleWithFixedDelay(this::collectAll, period, period, TimeUnit.NANOSECONDS);
        }
    }

    /** {@code objects} objects of {@code unit} were deleted: plans its collection. */
    public synchronized void deleted(String unit, long objects) {
        if (objects <= 0 || !schedule.afterDeletes() || thread.isShutdown()) {
            return;
        }
        Pending p = pending.get(unit);
        if (p != null) {
            p.run().cancel(false);
        }
        plan(unit, p == null ? System.nanoTime() : p.firstDeleteNanos());
    }

    /** Schedules the unit's collection a quiet time from now, but no later than the maximum delay after {@code first}. */
    private void plan(String unit, long first) {
        long delay = Math.min(schedule.afterDelete().toNanos(), first + schedule.maxDelay().toNanos() - System.nanoTime());
        ScheduledFuture<?> run = thread.schedule(() -> collectAfterDeletes(unit), Math.max(0, delay), TimeUnit.NANOSECONDS);
        pending.put(unit, new Pending(first, run));
    }

    /**
     * Runs the planned collection, or, while backup streams are open and the maximum delay has not
     * passed, waits another quiet time: a collection holds the unit's lock, and backups wait for it.
     */
    private void collectAfterDeletes(String unit) {
        synchronized (this) {
            Pending p = pending.get(unit);
            if (p == null || thread.isShutdown()) {
                return;
            }
            boolean late = System.nanoTime() - p.firstDeleteNanos() >= schedule.maxDelay().toNanos();
            if (metrics.activeLeases() > 0 && !late) {
                plan(unit, p.firstDeleteNanos());
                return;
            }
            pending.remove(unit);
        }
        collectLogged(unit, "after deletes");
    }

    private void collectAll() {
        for (String unit : engine.unitNames()) {
            collectLogged(unit, "on schedule");
        }
    }

    private void collectLogged(String unit, String why) {
        try {
            collect(unit, why);
        } catch (StoreException e) {
            LOG.log(System.Logger.Level.WARNING, "unit " + unit + ": garbage collection " + why + " failed: " + e.getMessage());
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "unit " + unit + ": garbage collection " + why + " failed", e);
        }
    }

    /** Collects {@code unit} now, on the calling thread, and logs what it freed; {@code why} says who asked. */
    public GcReport collect(String unit, String why) {
        long start = System.nanoTime();
        GcReport r = engine.unit(unit).collectGarbage();
        long ms = (System.nanoTime() - start) / 1_000_000;
        metrics.gcRun(r);
        LOG.log(System.Logger.Level.INFO, "unit " + unit + ": garbage collection " + why + ": " + r.chunksRemoved() + " of "
                + r.chunksBefore() + " chunks removed, " + r.bytesReclaimed() + " bytes reclaimed, " + r.containersRewritten()
                + " containers removed or rewritten in " + ms + " ms");
        return r;
    }

    /** Waits for a collection in progress; cancels those not started. */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(10, TimeUnit.MINUTES)) {
                LOG.log(System.Logger.Level.WARNING, "garbage collection still running after 10 minutes; stopping anyway");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
