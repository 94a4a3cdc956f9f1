package io.gpdedup.bench.model;

import io.gpdedup.appliance.ApplianceProfile;
import java.time.Duration;

/** An appliance profile with some of its values replaced and the rest as they were: fits and what-ifs. */
final class ProfileEdits {
    private ProfileEdits() {
    }

    /** The profile with these request and file timings. */
    static ApplianceProfile timings(ApplianceProfile p, Duration request, Duration open, Duration close, Duration namespace) {
        return new ApplianceProfile(p.name(), p.scale(), p.streamCapMBps(), p.poolReserveMBps(), p.poolRebalance(),
                p.clientCostMsPerMB(), request, p.writeRawMBps(), p.perStreamOverhead(), p.maxActiveStreams(), p.hostReadCapMBps(),
                open, close, namespace, p.lookupCapacityMBps(), p.streamReadCapMBps(), p.readRawMBps());
    }

    /** The profile with the appliance reading (rehydrating) {@code mbps} physical MB/s before its per-stream overhead. */
    static ApplianceProfile readRaw(ApplianceProfile p, double mbps) {
        return new ApplianceProfile(p.name(), p.scale(), p.streamCapMBps(), p.poolReserveMBps(), p.poolRebalance(),
                p.clientCostMsPerMB(), p.requestLatency(), p.writeRawMBps(), p.perStreamOverhead(), p.maxActiveStreams(),
                p.hostReadCapMBps(), p.fileOpenLatency(), p.fileCloseLatency(), p.namespaceOpCost(), p.lookupCapacityMBps(),
                p.streamReadCapMBps(), mbps);
    }
}
