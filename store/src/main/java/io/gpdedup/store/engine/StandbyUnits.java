package io.gpdedup.store.engine;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The units of a store started as a standby ({@code serve --standby}) that another store holds
 * now. One thread tries each of them again every so often: while the holder's lease is live that
 * costs one read of the lease; once it lapsed, the try takes the lease over, opens the unit (loading
 * its index) and hands it to the engine, which serves it from then on.
 */
public final class StandbyUnits implements MeterBinder {
    private static final Logger LOG = Logger.getLogger(StandbyUnits.class.getName());

    /** Opens a unit: takes its lease (or fails with {@link UnitHeldException}) and loads it. */
    @FunctionalInterface
    interface Opener {
        DedupStorageUnit open(String name) throws IOException;
    }

    /** Gives an opened unit to the engine; false when the engine closed meanwhile (the unit is then closed, its lease given back). */
    @FunctionalInterface
    interface Adopter {
        boolean adopt(String name, DedupStorageUnit unit);
    }

    private final Opener opener;
    private final Adopter adopter;
    private final Map<String, UnitHeldException> waiting = new ConcurrentHashMap<>();
    private final AtomicLong takeOvers = new AtomicLong();
    private final ScheduledExecutorService watcher = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gpdedup-standby");
        t.setDaemon(true);
        return t;
    });

    StandbyUnits(Opener opener, Adopter adopter) {
        this.opener = opener;
        this.adopter = adopter;
    }

    /** Puts {@code name} on standby: its holder is the one {@code held} names. */
    void add(String name, UnitHeldException held) {
        if (waiting.putIfAbsent(name, held) == null) {
            LOG.info(() -> "storage unit " + name + ": standby: held by " + held.holder() + "; this store takes it over once that lease lapses"
                    + " (looks every " + held.lookAgainAfter().toSeconds() + " s)");
            schedule(name, held.lookAgainAfter());
        }
    }

    /** Why a login to {@code name} is refused, or null when the unit is not on standby here. */
    UnitNotServedException notServed(String name) {
        UnitHeldException held = waiting.get(name);
        return held == null ? null : new UnitNotServedException(name, held.holder());
    }

    /** How many units wait for their holder's lease to lapse. */
    public int count() {
        return waiting.size();
    }

    private void schedule(String name, Duration after) {
        try {
            watcher.schedule(() -> tryTakeOver(name), after.toMillis(), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException closed) {
            // The engine is closing: nothing left to take over for.
        }
    }

    private void tryTakeOver(String name) {
        UnitHeldException last = waiting.get(name);
        if (last == null) {
            return;
        }
        // The open's first request reads the lease: from here to the unit open is what a take-over costs.
        long start = System.nanoTime();
        DedupStorageUnit unit;
        try {
            unit = opener.open(name);
        } catch (UnitHeldException e) {
            waiting.put(name, e);
            schedule(name, e.lookAgainAfter());
            return;
        } catch (IOException | RuntimeException e) {
            LOG.warning(() -> "storage unit " + name + ": standby: cannot take it over now (" + e.getMessage() + "); trying again in "
                    + last.lookAgainAfter().toSeconds() + " s");
            schedule(name, last.lookAgainAfter());
            return;
        }
        if (!adopter.adopt(name, unit)) {
            unit.close();
            return;
        }
        waiting.remove(name);
        takeOvers.incrementAndGet();
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        LOG.info(() -> "storage unit " + name + ": taken over from " + last.holder() + " in " + ms
                + " ms (its lease found lapsed, then taken and the unit opened); this store serves it now");
    }

    /** Stops looking; waits a while for a take-over in progress, which then finds the engine closed and gives the unit back. */
    void close() {
        watcher.shutdownNow();
        try {
            watcher.awaitTermination(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder("gpdedup.store.units.standby", waiting, Map::size)
                .description("storage units this store is the standby of, another store holding them now").register(registry);
        FunctionCounter.builder("gpdedup.store.takeovers", takeOvers, AtomicLong::get)
                .description("storage units this standby took over after their holder's lease lapsed").register(registry);
    }
}
