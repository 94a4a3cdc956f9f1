package io.gpdedup.store.net;

import io.gpdedup.store.config.HoldLimits;
import io.gpdedup.store.metrics.StoreMetrics;
import java.util.HashMap;
import java.util.Map;

/**
 * The backup leases open server-wide, in total and per unit, held to {@link HoldLimits}: a lease
 * counts from BEGIN_BACKUP until it is closed, which for a lost connection's leases is after the
 * reconnect grace, so connecting again and again does not get round the caps.
 */
final class BackupLeaseCounts {
    private static final System.Logger LOG = System.getLogger(BackupLeaseCounts.class.getName());

    private final HoldLimits limits;
    private final StoreMetrics metrics;
    private final Map<String, Integer> perUnit = new HashMap<>();
    private int total;

    BackupLeaseCounts(HoldLimits limits, StoreMetrics metrics) {
        this.limits = limits;
        this.metrics = metrics;
    }

    /**
     * Counts one more lease of {@code unit}, opened by a connection that holds {@code ofConnection}.
     *
     * @throws BadRequestException at a cap, naming it; nothing counted
     */
    void take(String unit, String user, int ofConnection) {
        String refused = null;
        synchronized (this) {
            int ofUnit = perUnit.getOrDefault(unit, 0);
            if (ofConnection >= limits.maxLeasesPerConnection()) {
                refused = "this connection already holds " + ofConnection + " open backup leases, the store's max-leases-per-connection";
            } else if (ofUnit >= limits.maxLeasesPerUnit()) {
                refused = "unit '" + unit + "' already holds " + ofUnit + " open backup leases, the store's max-leases-per-unit";
            } else if (total >= limits.maxLeases()) {
                refused = "the store already holds " + total + " open backup leases, its max-leases";
            } else {
                perUnit.put(unit, ofUnit + 1);
                total++;
            }
        }
        if (refused != null) {
            metrics.limitReached("leases");
            LOG.log(System.Logger.Level.WARNING, "BEGIN_BACKUP of user '" + user + "' refused: " + refused);
            throw new BadRequestException("BEGIN_BACKUP refused: " + refused + " (commit or abort some; a lost connection's leases"
                    + " stay open for the reconnect grace)");
        }
    }

    synchronized void give(String unit) {
        int left = perUnit.getOrDefault(unit, 0) - 1;
        if (left > 0) {
            perUnit.put(unit, left);
        } else {
            perUnit.remove(unit);
        }
        total--;
    }
}
