package io.gpdedup.store.cli;

import io.gpdedup.store.engine.StoreEngine;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.ServiceLoader;

/**
 * A simulated appliance the store can serve through ({@code serve --appliance-profile}): the
 * benchmarks' stand-in for a closed deduplicating appliance. It lives in the appliance module and
 * is found on the classpath when asked for, so the store itself carries no simulation: the
 * product's {@code gpdedup-store} has no appliance on its classpath, the tool
 * {@code gpdedup-appliance} (the same main with lib/appliance.jar) has.
 */
public interface SimulatedAppliance {
    /**
     * Reads the profile before anything is opened.
     *
     * @param trace where to write what the throttle let through, or null
     * @throws IllegalArgumentException with a message fit for the user when the profile cannot be used
     */
    Profile load(Path profile, Path trace);

    /** A profile that has been read and checked. */
    interface Profile {
        /** The engine served through the appliance; the caller still owns {@code engine} if this fails. */
        StoreEngine wrap(StoreEngine engine) throws IOException;

        /** One line for the log: which profile, at what scale. */
        String description();
    }

    /** The simulation on the classpath; IllegalStateException when there is none (the product's store). */
    static SimulatedAppliance find() {
        Iterator<SimulatedAppliance> found = ServiceLoader.load(SimulatedAppliance.class).iterator();
        if (!found.hasNext()) {
            throw new IllegalStateException("--appliance-profile is not part of the product gpdedup-store: "
                    + "serve through a simulated appliance with gpdedup-appliance serve --appliance-profile FILE");
        }
        return found.next();
    }
}
