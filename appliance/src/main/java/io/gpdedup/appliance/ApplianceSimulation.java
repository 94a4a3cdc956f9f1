package io.gpdedup.appliance;

import io.gpdedup.store.cli.SimulatedAppliance;
import io.gpdedup.store.engine.StoreEngine;
import java.io.IOException;
import java.nio.file.Path;

/** What {@code gpdedup-store serve --appliance-profile} finds on its classpath: the store served through {@link ApplianceEngine}. */
public final class ApplianceSimulation implements SimulatedAppliance {
    @Override
    public Profile load(Path file, Path trace) {
        ApplianceProfile profile = ApplianceProfile.load(file);
        return new Profile() {
            @Override
            public StoreEngine wrap(StoreEngine engine) throws IOException {
                return ApplianceEngine.wrap(engine, profile, trace);
            }

            @Override
            public String description() {
                return "appliance profile " + profile.name() + " at scale " + profile.scale() + (trace == null ? "" : ", trace in " + trace);
            }
        };
    }
}
