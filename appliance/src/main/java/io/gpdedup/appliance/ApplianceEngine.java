package io.gpdedup.appliance;

import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.engine.StoreEngine;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;

/**
 * A store engine behind a simulated appliance: the engine does the real work (chunks reach disk,
 * recipes commit) while the appliance makes every backup and restore stream wait as the profile
 * says. A wrapper around {@link StoreEngine}, nothing inside the store's logic knows about it.
 *
 * <p>The server asks the engine for a unit at every login, so each connection gets its own
 * {@link ThrottledUnit}: a connection is a restore stream, a lease a backup stream. The throttle
 * holds the server's engine thread while a stream waits, so the server needs an engine thread per
 * stream it should run in parallel (config key {@code engine-threads}).
 */
final class ApplianceEngine implements StoreEngine {
    private final StoreEngine engine;
    private final Appliance appliance;

    private ApplianceEngine(StoreEngine engine, Appliance appliance) {
        this.engine = engine;
        this.appliance = appliance;
    }

    /**
     * Puts {@code engine} behind an appliance with {@code profile}. With a {@code traceFile}, writes
     * there what the throttle let through, per stream and per 100 ms (CSV, replaced if present).
     */
    public static ApplianceEngine wrap(StoreEngine engine, ApplianceProfile profile, Path traceFile) throws IOException {
        FlowTrace trace = traceFile == null ? FlowTrace.NONE : FlowTrace.open(traceFile, ApplianceClock.SYSTEM.nanos());
        return new ApplianceEngine(engine, new Appliance(profile, trace, ApplianceClock.SYSTEM, true));
    }

    public ApplianceProfile profile() {
        return appliance.profile;
    }

    @Override
    public StorageUnit unit(String name) {
        return new ThrottledUnit(engine.unit(name), appliance);
    }

    @Override
    public Set<String> unitNames() {
        return engine.unitNames();
    }

    @Override
    public Path dataDirectory() {
        return engine.dataDirectory();
    }

    @Override
    public void close() {
        try {
            engine.close();
        } finally {
            appliance.close();
        }
    }
}
