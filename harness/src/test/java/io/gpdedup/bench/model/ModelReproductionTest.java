package io.gpdedup.bench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.appliance.ApplianceProfile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The CI assertion of issue 5: the model with the repository's profile reproduces tables A to F. */
class ModelReproductionTest {
    static final Path SEED = Path.of("..", "profiles", "seed003.yaml");

    static ApplianceProfile profile;
    static Reproduction reproduction;

    @BeforeAll
    static void run() {
        profile = ApplianceProfile.load(SEED);
        reproduction = new Reproduction(profile, Cluster.seed003(), TableMix.seed003()).run();
    }

    @Test
    void everyCellOfAToCIsWithinTenPercent() {
        String over = over(10, "ABC");
        assertTrue(over.isEmpty(), "cells off by more than 10%:\n" + over);
    }

    @Test
    void everyCellOfDToFIsWithinTwentyFivePercent() {
        String over = over(25, "DEF");
        assertTrue(over.isEmpty(), "cells off by more than 25%:\n" + over);
    }

    @Test
    void everyPublishedCellIsCompared() {
        long a = reproduction.cells().stream().filter(c -> c.table().equals("A")).count();
        long c = reproduction.cells().stream().filter(x -> x.table().equals("C")).count();
        long df = reproduction.cells().stream().filter(x -> "DEF".contains(x.table())).count();
        assertEquals(5, a);
        assertEquals(2 + 4 + 8 + 3, c);
        assertEquals(18, df);
    }

    @Test
    void jobsModeIsAnOrderOfMagnitudeSlowerOnTheApplianceButNotOnALocalFileSystem() {
        double jobsAppliance = minutes(1);
        double sdfAppliance = minutes(3);
        double jobsLocal = minutes(9);
        double sdfLocal = minutes(15);
        assertTrue(jobsAppliance > 10 * sdfAppliance, jobsAppliance + " vs " + sdfAppliance);
        assertTrue(jobsLocal < sdfLocal, "to a local FS jobs mode is the faster one");
        assertTrue(jobsAppliance > 30 * jobsLocal);
    }

    @Test
    void repeatedBackupsAreFasterAndSmallTablesSlow() {
        assertTrue(mbps(2) > mbps(1));
        assertTrue(mbps(4) > mbps(3));
        assertTrue(mbps(6) > 4 * mbps(5));
        assertTrue(mbps(7) < mbps(5) / 5, "small tables move an order of magnitude slower");
    }

    @Test
    void fourAndEightHostsShareTheSameTotal() {
        double four = reproduction.hostRuns().get(4).totalMBps();
        double eight = reproduction.hostRuns().get(8).totalMBps();
        assertEquals(four, eight, four * 0.01);
        assertEquals(2 * reproduction.hostRuns().get(8).hostMBps()[0], reproduction.hostRuns().get(4).hostMBps()[0], 1);
    }

    @Test
    void namespaceCostActsOnJobsModeOnly() {
        ApplianceProfile slowNamespace = new ApplianceProfile(profile.name(), profile.scale(), profile.streamCapMBps(),
                profile.poolReserveMBps(), profile.poolRebalance(), profile.clientCostMsPerMB(), profile.requestLatency(),
                profile.writeRawMBps(), profile.perStreamOverhead(), profile.maxActiveStreams(), profile.hostReadCapMBps(),
                profile.fileOpenLatency(), profile.fileCloseLatency(), profile.namespaceOpCost().multipliedBy(2),
                profile.lookupCapacityMBps(), profile.streamReadCapMBps(), profile.readRawMBps());
        BackupModel base = new BackupModel(profile, Cluster.seed003(), TableMix.seed003());
        BackupModel slow = new BackupModel(slowNamespace, Cluster.seed003(), TableMix.seed003());
        double ratio = slow.run(Published.run(1)).seconds() / base.run(Published.run(1)).seconds();
        assertTrue(ratio > 1.8 && ratio < 2.1, "jobs mode waits on the namespace: " + ratio);
        assertEquals(base.run(Published.run(3)).seconds(), slow.run(Published.run(3)).seconds(), 1e-9);
        assertEquals(base.run(Published.run(9)).seconds(), slow.run(Published.run(9)).seconds(), 1e-9);
    }

    @Test
    void storedParametersAreTheFittedOnes() {
        ApplianceProfile solved = Calibration.fromTablesAToC(profile).profile();
        assertEquals(solved.streamCapMBps(), profile.streamCapMBps(), 0.01 * solved.streamCapMBps());
        assertEquals(solved.poolReserveMBps(), profile.poolReserveMBps(), 0.01 * solved.poolReserveMBps());
        assertEquals(solved.writeRawMBps(), profile.writeRawMBps(), 0.01 * solved.writeRawMBps());
        assertEquals(solved.perStreamOverhead(), profile.perStreamOverhead(), 0.01 * solved.perStreamOverhead());
        assertEquals(solved.maxActiveStreams(), profile.maxActiveStreams());
        assertEquals(solved.clientCostMsPerMB(), profile.clientCostMsPerMB(), 0.01 * solved.clientCostMsPerMB());
        assertEquals(solved.hostReadCapMBps(), profile.hostReadCapMBps(), 0.01 * solved.hostReadCapMBps());
        assertEquals(solved.poolRebalance(), profile.poolRebalance(), 0.03 * solved.poolRebalance());

        Calibration.Fitted fitted = new Calibration(profile, Cluster.seed003(), TableMix.seed003()).fit();
        assertClose(fitted.cluster().copyStartSeconds(), Cluster.seed003().copyStartSeconds());
        assertClose(fitted.cluster().tableFinishSeconds(), Cluster.seed003().tableFinishSeconds());
        assertClose(fitted.cluster().csvCompression(), Cluster.seed003().csvCompression());
        assertClose(seconds(fitted.profile().requestLatency()), seconds(profile.requestLatency()));
        assertClose(seconds(fitted.profile().namespaceOpCost()), seconds(profile.namespaceOpCost()));
        assertClose(fitted.profile().readRawMBps(), profile.readRawMBps());
    }

    private static void assertClose(double fitted, double stored) {
        assertEquals(fitted, stored, 0.01 * Math.abs(fitted), "stored " + stored + ", fitted " + fitted);
    }

    private static double seconds(Duration d) {
        return d.toNanos() / 1e9;
    }

    private static double minutes(int row) {
        return reproduction.runs().get(row).minutes();
    }

    private static double mbps(int row) {
        return reproduction.runs().get(row).mbps();
    }

    private static String over(double limit, String tables) {
        return reproduction.cells().stream()
                .filter(c -> tables.contains(c.table()) && Math.abs(c.errorPercent()) > limit)
                .map(c -> String.format("%s %s: ours %.1f, published %.1f (%.1f%%)", c.table(), c.what(), c.ours(), c.published(), c.errorPercent()))
                .collect(Collectors.joining("\n"));
    }
}
