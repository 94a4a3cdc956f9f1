package io.gpdedup.appliance;

import io.gpdedup.store.engine.StoreException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The simulated appliance one store serves through: the profile turned into live waits. Shared by
 * every connection's {@link ThrottledUnit} and every {@link ThrottledBackupLease}.
 *
 * <p>Rates are the profile's reference rates times its scale; durations (file latencies, the
 * namespace and request waits) are the reference's own. A live run scales its data sizes by the
 * same factor, so a transfer lasts as long as in the reference and keeps its proportion to the
 * fixed per-file costs.
 */
final class Appliance implements AutoCloseable {
    /** A restore stream with no read this long has ended (reads carry no stream identity). */
    static final long READ_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    final ApplianceProfile profile;
    final ApplianceClock clock;
    final FlowScheduler scheduler;
    final SerialResource namespace;
    final SerialResource index;
    private final FlowTrace trace;
    private final Set<ThrottledUnit> readers = ConcurrentHashMap.newKeySet();
    /** Logical bytes and chunks of the recipes committed so far: the mean chunk size. */
    private final java.util.concurrent.atomic.AtomicLongArray recipes = new java.util.concurrent.atomic.AtomicLongArray(2);
    private final ScheduledExecutorService sweeper;

    Appliance(ApplianceProfile profile, FlowTrace trace, ApplianceClock clock, boolean sweep) {
        this.profile = profile;
        this.clock = clock;
        this.trace = trace;
        this.scheduler = new FlowScheduler(new ApplianceRates(profile), clock, trace);
        this.namespace = new SerialResource(clock);
        this.index = new SerialResource(clock);
        if (sweep) {
            sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "appliance-read-sweeper");
                t.setDaemon(true);
                return t;
            });
            sweeper.scheduleWithFixedDelay(this::endIdleReads, 100, 100, TimeUnit.MILLISECONDS);
        } else {
            sweeper = null;
        }
    }

    /** A file create: its fixed latency, then its turn on the serial namespace. */
    void openFile() {
        wait(profile.fileOpenLatency());
        holdNamespace();
    }

    /** A file close: its fixed latency, then its turn on the serial namespace. */
    void closeFile() {
        wait(profile.fileCloseLatency());
        holdNamespace();
    }

    /** The round trip of a synchronous request. */
    void requestRoundTrip() {
        wait(profile.requestLatency());
    }

    private void holdNamespace() {
        try {
            namespace.hold(profile.namespaceOpCost().toNanos());
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    /**
     * What a dedup stream spends on {@code logicalBytes} (live bytes) before sending any of them:
     * the plugin's own work and the index lookup, in series.
     */
    double dedupSeconds(long logicalBytes) {
        return logicalBytes * clientSecondsPerByte() + lookupSeconds(logicalBytes);
    }

    /**
     * Reserves the lookup of {@code logicalBytes} (live bytes) on the appliance's index, which
     * serves one lookup at a time, and returns the seconds from now until it is done (queue and
     * service): the caller spends them as its stream's own work, in series with its transfer.
     */
    double lookupSeconds(long logicalBytes) {
        if (logicalBytes <= 0) {
            return 0;
        }
        double perSecond = profile.liveBytesPerSecond(profile.lookupCapacityMBps());
        long now = clock.nanos();
        return Math.max(0, index.reserve((long) (logicalBytes / perSecond * 1e9)) - now) / 1e9;
    }

    /** Client work per live logical byte: the reference's per MB over the bytes a live MB stands for. */
    double clientSecondsPerByte() {
        return profile.clientCostSecondsPerMB() / (ApplianceProfile.MB * profile.scale());
    }

    /** Spends {@code workSeconds} of the stream's own work, then moves {@code wireBytes} at its rate. */
    void move(FlowScheduler.Flow flow, long wireBytes, long logicalBytes, double workSeconds) {
        try {
            scheduler.move(flow, wireBytes, logicalBytes, workSeconds);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    /** The mean chunk size (bytes) of what was committed so far; 64 KiB before the first commit. */
    double meanChunkBytes() {
        long chunks = recipes.get(1);
        return chunks == 0 ? 64 * 1024 : (double) recipes.get(0) / chunks;
    }

    void sawRecipe(io.gpdedup.protocol.model.Recipe recipe) {
        recipes.addAndGet(0, recipe.totalLength());
        recipes.addAndGet(1, recipe.chunks().size());
    }

    /** Watches a connection's restore stream, to end it once idle. */
    void reading(ThrottledUnit unit) {
        readers.add(unit);
    }

    void notReading(ThrottledUnit unit) {
        readers.remove(unit);
    }

    void endIdleReads() {
        long now = clock.nanos();
        for (ThrottledUnit u : readers) {
            u.endReadIfIdle(now, READ_IDLE_NANOS);
        }
    }

    private void wait(Duration d) {
        sleepNanos(d.toNanos());
    }

    private void sleepNanos(long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            clock.sleepUntil(clock.nanos() + nanos);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    static StoreException interrupted(InterruptedException e) {
        Thread.currentThread().interrupt();
        return new StoreException("interrupted while the appliance throttle held the request", e);
    }

    @Override
    public void close() {
        if (sweeper != null) {
            sweeper.shutdownNow();
        }
        trace.close();
    }
}
