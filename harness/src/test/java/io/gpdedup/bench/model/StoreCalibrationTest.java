package io.gpdedup.bench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpdedup.appliance.ApplianceProfile;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A real store's profile from what calibrate measured: the mechanisms' values come back from figures they produce. */
class StoreCalibrationTest {
    static final int[] THREADS = {1, 5, 10, 20, 30};

    /** Totals of n streams of {@code perStream} each under a capacity raw / (1 + overhead * min(n, maxActive)). */
    private static double total(int n, double perStream, double raw, double overhead, int maxActive) {
        return Math.min(n * perStream, raw / (1 + overhead * Math.min(n, maxActive)));
    }

    private static List<StoreCalibration.Measured> measured(double repeatCap) {
        List<StoreCalibration.Measured> rows = new ArrayList<>();
        for (int n : THREADS) {
            rows.add(new StoreCalibration.Measured(n, total(n, 200, 2000, 0.1, 20), Math.min(n * 500, repeatCap), total(n, 300, 3000, 0.1, 20)));
        }
        return rows;
    }

    @Test
    void theCapacitiesAndTheClientsWorkComeBackFromTheFiguresTheyGive() {
        StoreCalibration.Result r = StoreCalibration.solve("mine", measured(Double.MAX_VALUE), 0.5,
                new StoreCalibration.Files(12, 30, 250));
        ApplianceProfile p = r.profile();
        assertEquals(2, p.clientCostMsPerMB(), 1e-9, "1000 / 500 MB/s of repeats");
        assertEquals(200, p.pluginStreamCapMBps(1), 1e-6, "a stream alone writes what one thread wrote");
        assertEquals(0, p.poolReserveMBps());
        assertEquals(2000, p.writeRawMBps(), 2000 * 0.02);
        assertEquals(0.1, p.perStreamOverhead(), 0.005);
        assertEquals(20, p.maxActiveStreams());
        assertEquals(300, p.streamReadCapMBps(), 1e-9);
        assertEquals(3000, p.readRawMBps(), 3000 * 0.02);
        for (int n : THREADS) {
            double plugin = Math.min(n * p.pluginStreamCapMBps(1), p.aggregateCapMBps(n));
            assertEquals(total(n, 200, 2000, 0.1, 20), plugin, 0.02 * plugin, n + " threads through the plugin's pipeline");
        }
        assertEquals(Calibration.LOOKUP_CAPACITY_MBPS, p.lookupCapacityMBps(), "repeats grew with the threads: lookups did not bind");
        assertEquals(0.5, p.requestLatency().toNanos() / 1e6, 1e-9);
        assertEquals(2, p.namespaceOpCost().toNanos() / 1e6, 1e-9, "250 objects/s, a create and a close each");
        assertEquals((12 - 4 - 0.5) / 2, p.fileOpenLatency().toNanos() / 1e6, 1e-9);
        assertEquals(p, ApplianceProfile.parse(p.toYaml(), "round trip"));
        assertEquals(THREADS.length, r.fit().rows().size());
    }

    @Test
    void repeatsThatStopGrowingAreTheStoresLookups() {
        ApplianceProfile p = StoreCalibration.solve("mine", measured(4000), 0.5, new StoreCalibration.Files(12, 30, 250)).profile();
        assertEquals(4000, p.lookupCapacityMBps(), 1e-9);
    }

    @Test
    void oneThreadMustBeMeasured() {
        List<StoreCalibration.Measured> noOne = measured(Double.MAX_VALUE).subList(1, THREADS.length);
        assertThrows(IllegalArgumentException.class,
                () -> StoreCalibration.solve("mine", noOne, 0.5, new StoreCalibration.Files(12, 30, 250)));
    }
}
