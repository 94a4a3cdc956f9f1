package io.gpdedup.bench.runner;

import io.gpdedup.appliance.ApplianceProfile;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** The options every live command shares: which profile, scale, installation, and where files go. */
final class LiveOptions {
    @Option(names = "--profile", paramLabel = "FILE",
            description = "appliance profile to serve through (default: the built-in reference appliance)")
    Path profile;

    @Option(names = "--scale", paramLabel = "X",
            description = "live rate = reference rate x X; data sizes are scaled by X too (default: the profile's scale)")
    Double scale;

    @Option(names = "--dist", paramLabel = "DIR", description = "gpdedup installation to run (default: the one this runs from)")
    Path dist;

    @Option(names = "--work", paramLabel = "DIR", description = "scratch directory for the store and the hosts (default: a temp dir, removed after)")
    Path work;

    @Option(names = "--keep", description = "keep the scratch directory (store data, logs, the appliance trace)")
    boolean keep;

    @Option(names = "--out", paramLabel = "DIR", description = "write CSV, JSON and PNG charts here")
    Path out;

    @Option(names = "--quiet", description = "no progress bar")
    boolean quiet;

    /** With a real store there is no profile, no scale and no store of ours to start. */
    void refuseWithRealStore() {
        StoreTarget.refuse("--profile", profile != null);
        StoreTarget.refuse("--scale", scale != null);
        StoreTarget.refuse("--dist", dist != null);
        StoreTarget.refuse("--work", work != null);
        StoreTarget.refuse("--keep", keep);
    }

    /** {@code p} at the scale asked for. */
    ApplianceProfile scaled(ApplianceProfile p) {
        if (scale != null) {
            if (!(scale > 0) || scale.isInfinite()) {
                throw new IllegalArgumentException("--scale must be > 0, got " + scale);
            }
            p = p.withScale(scale);
        }
        return p;
    }
}
