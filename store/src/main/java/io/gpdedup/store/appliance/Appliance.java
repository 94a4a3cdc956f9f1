package io.gpdedup.store.appliance;

import io.gpdedup.store.engine.StoreException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * The simulated appliance one store serves through: the profile turned into live waits. Shared by
 * every connection's {@link ThrottledUnit} and every {@link ThrottledLease}.
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
    final LongSupplier clock;
    final FlowScheduler scheduler;
    final SerialResource namespace;
    final SerialResource index;
    private final FlowTrace trace;
    private final Set<ThrottledUnit> readers = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService sweeper;

    Appliance(ApplianceProfile profile, FlowTrace trace, LongSupplier nanoClock, boolean sweep) {
        this.profile = profile;
        this.clock = nanoClock;
        this.trace = trace;
        this.scheduler = new FlowScheduler(new ApplianceRates(profile), nanoClock, trace);
        this.namespace = new SerialResource(nanoClock);
        this.index = new SerialResource(nanoClock);
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

    /** The plugin's own work on {@code logicalBytes} (live bytes), in series with its transfer. */
    void clientWork(long logicalBytes) {
        sleepNanos((long) (logicalBytes * clientSecondsPerByte() * 1e9));
    }

    /** Looking {@code logicalBytes} (live bytes) up in the appliance's index, one lookup at a time. */
    void lookup(long logicalBytes) {
        if (logicalBytes <= 0) {
            return;
        }
        double perSecond = profile.liveBytesPerSecond(profile.lookupCapacityMBps());
        try {
            index.hold((long) (logicalBytes / perSecond * 1e9));
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    /** Client work per live logical byte: the reference's per MB over the bytes a live MB stands for. */
    double clientSecondsPerByte() {
        return profile.clientCostSecondsPerMB() / (ApplianceProfile.MB * profile.scale());
    }

    void move(FlowScheduler.Flow flow, long wireBytes, long logicalBytes) {
        try {
            scheduler.move(flow, wireBytes, logicalBytes);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    void reading(ThrottledUnit unit) {
        readers.add(unit);
    }

    private void endIdleReads() {
        long now = clock.getAsLong();
        for (ThrottledUnit u : readers) {
            if (u.endReadIfIdle(now, READ_IDLE_NANOS)) {
                readers.remove(u);
            }
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
            sleepUntil(clock, clock.getAsLong() + nanos);
        } catch (InterruptedException e) {
            throw interrupted(e);
        }
    }

    static void sleepUntil(LongSupplier clock, long deadline) throws InterruptedException {
        long left;
        while ((left = deadline - clock.getAsLong()) > 0) {
            LockSupport.parkNanos(left);
            if (Thread.interrupted()) {
                throw new InterruptedException();
            }
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
