package io.gpdedup.bench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.model.Published.Run;
import io.gpdedup.bench.model.Published.Target;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The model with the repository's profile reproduces tables A to F, and that profile is what the
 * calibration rule gives: A to C, one appliance value fitted on one row of D, the appliance's read
 * capacity on the one restore row of F, the cluster's per-table costs on rows of E, everything
 * else predicted.
 */
class ModelReproductionTest {
    static final Path SEED = Path.of("..", "profiles", "seed003.yaml");

    /**
     * Rows of D to F the model misses by more than 25%, each to be explained in docs/appliance.md
     * ("What the model does not reproduce"): none.
     */
    static final Set<Integer> KNOWN_MISSES = Set.of();

    static ApplianceProfile profile;
    static TableMix mix;
    static Reproduction reproduction;

    @BeforeAll
    static void run() {
        profile = ApplianceProfile.load(SEED);
        mix = TableMix.seed003();
        reproduction = new Reproduction(profile, Cluster.seed003(), mix).run();
    }

    @Test
    void everyCellOfAToCIsWithinTenPercent() {
        String over = over(10, "ABC");
        assertTrue(over.isEmpty(), "cells off by more than 10%:\n" + over);
    }

    @Test
    void everyRowOfDToFButTheKnownMissesIsWithinTwentyFivePercent() {
        Set<Integer> beyond = new TreeSet<>();
        for (Run run : Published.RUNS) {
            double error = Math.abs(error(run.row()));
            if (error > 25) {
                beyond.add(run.row());
            }
        }
        assertEquals(KNOWN_MISSES, beyond, "rows of D to F beyond 25% (a change here must change docs/appliance.md):\n" + over(25, "DEF"));
        assertTrue(reproduction.worstError("DEF") <= 25 && reproduction.worstError("ABC") <= 10);
    }

    @Test
    void theRestoreIsSlowerThanTheBackupOfTheSameTablesOnlyThroughTheFittedReadCapacity() {
        assertEquals(Published.run(18).mbps(), mbps(18), 0.01 * Published.run(18).mbps(), "row 18 is fitted");
        assertTrue(mbps(18) < mbps(5) / 3, "the seed restored the large tables 3.7 times slower than it backed them up");
        // with the read capacity at the write capacity (the assumption before the fit) the model
        // restores the large tables as fast as it backs them up, 3.9 times the published restore
        Reproduction readAsWrite = new Reproduction(ProfileEdits.readRaw(profile, profile.writeRawMBps()), Cluster.seed003(), mix)
                .run();
        double unfitted = readAsWrite.runs().get(18).mbps();
        assertEquals(mbps(5), unfitted, 0.01 * mbps(5));
        // a fitted row is kept out of the validation error: the miss shows in its row, not in the worst error
        assertTrue(unfitted > 3 * Published.run(18).mbps());
        assertEquals(reproduction.worstError("DEF"), readAsWrite.worstError("DEF"), 1e-9);
        assertTrue(readAsWrite.beyond("DEF", 25).isEmpty());
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
    void oneRowOfDTwoRowsOfEWithoutPluginOrApplianceAndTheOneRestoreAreFitted() {
        assertEquals(Set.of(1, 15, 17, 18), Calibration.FITTED_ROWS);
        assertEquals(Set.of(Calibration.APPLIANCE_ROW), rows(r -> Calibration.FITTED_ROWS.contains(r) && table(r).equals("D")));
        assertEquals(Set.of(Calibration.RESTORE_ROW), rows(r -> Calibration.FITTED_ROWS.contains(r) && table(r).equals("F")));
        assertEquals(Set.of(Calibration.RESTORE_ROW), rows(r -> Published.run(r).restore()), "row 18 is the only published restore");
        for (int row : List.of(Calibration.FINISH_ROW, Calibration.START_ROW)) {
            assertEquals(Target.LOCAL_FS, Published.run(row).target(), "row " + row + " must involve neither plugin nor appliance");
        }
        // what the model prints as fitted is what the calibration fits
        for (Run run : Published.RUNS) {
            String role = (String) reproduction.tables().get(run.table()).rows().stream()
                    .filter(r -> r.get(0).equals(run.row())).findFirst().orElseThrow().get(10);
            assertEquals(Calibration.FITTED_ROWS.contains(run.row()) ? "fitted" : "predicted", role, "row " + run.row());
        }
    }

    @Test
    void theFitReadsOnlyItsOwnRows() {
        Calibration.Fitted base = new Calibration().fit(profile, Cluster.seed003(), mix);
        // every other published figure half as large again: nothing fitted moves
        Calibration.Fitted others = new Calibration(scaled(r -> !Calibration.FITTED_ROWS.contains(r), 1.5))
                .fit(profile, Cluster.seed003(), mix);
        assertEquals(base.profile(), others.profile());
        assertEquals(base.cluster(), others.cluster());
        // each fitted row moves its own value
        Calibration.Fitted d1 = new Calibration(scaled(r -> r == Calibration.APPLIANCE_ROW, 1.2)).fit(profile, Cluster.seed003(), mix);
        assertNotEquals(base.profile().namespaceOpCost(), d1.profile().namespaceOpCost());
        assertEquals(base.cluster(), d1.cluster(), "the cluster comes from table E only");
        Calibration.Fitted e17 = new Calibration(scaled(r -> r == Calibration.START_ROW, 1.1)).fit(profile, Cluster.seed003(), mix);
        assertNotEquals(base.cluster().copyStartSeconds(), e17.cluster().copyStartSeconds());
        Calibration.Fitted e15 = new Calibration(scaled(r -> r == Calibration.FINISH_ROW, 1.1)).fit(profile, Cluster.seed003(), mix);
        assertNotEquals(base.cluster().tableFinishSeconds(), e15.cluster().tableFinishSeconds());
        // the restore row moves the read capacity and nothing else
        Calibration.Fitted f18 = new Calibration(scaled(r -> r == Calibration.RESTORE_ROW, 1.2)).fit(profile, Cluster.seed003(), mix);
        assertNotEquals(base.profile().readRawMBps(), f18.profile().readRawMBps());
        assertEquals(ProfileEdits.readRaw(base.profile(), f18.profile().readRawMBps()), f18.profile());
        assertEquals(base.cluster(), f18.cluster());
    }

    @Test
    void storedValuesAreWhatTheRuleGives() {
        Calibration.Fitted solved = Calibration.fromTablesAToC(profile);
        ApplianceProfile s = solved.profile();
        assertClose(s.streamCapMBps(), profile.streamCapMBps());
        assertClose(s.poolReserveMBps(), profile.poolReserveMBps());
        assertClose(s.writeRawMBps(), profile.writeRawMBps());
        assertClose(s.perStreamOverhead(), profile.perStreamOverhead());
        assertEquals(s.maxActiveStreams(), profile.maxActiveStreams());
        assertClose(s.clientCostMsPerMB(), profile.clientCostMsPerMB());
        assertClose(s.hostReadCapMBps(), profile.hostReadCapMBps());
        assertEquals(s.poolRebalance(), profile.poolRebalance(), 0.03 * s.poolRebalance());
        // the assumptions: a read stream's cap is a write stream's, the index does not bind
        assertEquals(profile.streamCapMBps(), profile.streamReadCapMBps());
        assertEquals(Calibration.LOOKUP_CAPACITY_MBPS, profile.lookupCapacityMBps());
        // one request time: the stream's end-of-table wait and the namespace's service are the same
        // value, and a file's create or close waits for nothing but its namespace turn
        assertEquals(profile.requestLatency(), profile.namespaceOpCost());
        assertEquals(Duration.ZERO, profile.fileOpenLatency());
        assertEquals(Duration.ZERO, profile.fileCloseLatency());

        Calibration.Fitted fitted = new Calibration().fit(s, Cluster.seed003(), mix);
        Cluster stored = Cluster.seed003();
        assertClose(fitted.cluster().copyStartSeconds(), stored.copyStartSeconds());
        assertClose(fitted.cluster().tableFinishSeconds(), stored.tableFinishSeconds());
        assertEquals(2.0, stored.csvCompression(), "an assumption, not fitted");
        assertEquals(stored.csvCompression(), fitted.cluster().csvCompression());
        assertClose(seconds(fitted.profile().requestLatency()), seconds(profile.requestLatency()));
        assertClose(seconds(fitted.profile().namespaceOpCost()), seconds(profile.namespaceOpCost()));
        assertEquals(fitted.profile().requestLatency(), fitted.profile().namespaceOpCost());
        assertClose(fitted.profile().readRawMBps(), profile.readRawMBps());
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
        ApplianceProfile slowNamespace = ProfileEdits.timings(profile, profile.requestLatency(), profile.fileOpenLatency(),
                profile.fileCloseLatency(), profile.namespaceOpCost().multipliedBy(2));
        BackupModel base = new BackupModel(profile, Cluster.seed003(), mix);
        BackupModel slow = new BackupModel(slowNamespace, Cluster.seed003(), mix);
        double ratio = slow.run(Published.run(1).scenario()).seconds() / base.run(Published.run(1).scenario()).seconds();
        assertTrue(ratio > 1.8 && ratio < 2.1, "jobs mode waits on the namespace: " + ratio);
        assertEquals(base.run(Published.run(3).scenario()).seconds(), slow.run(Published.run(3).scenario()).seconds(), 1e-9);
        assertEquals(base.run(Published.run(9).scenario()).seconds(), slow.run(Published.run(9).scenario()).seconds(), 1e-9);
    }

    /** The published runs with the MB/s of the rows {@code which} selects multiplied by {@code factor}. */
    private static List<Run> scaled(IntPredicate which, double factor) {
        return Published.RUNS.stream()
                .map(r -> which.test(r.row()) ? new Run(r.row(), r.table(), r.label(), r.mode(), r.jobs(), r.copyQueue(), r.tables(),
                        r.target(), r.repeat(), r.restore(), r.terabytes(), r.minutes() / factor, r.mbps() * factor) : r)
                .toList();
    }

    private static Set<Integer> rows(IntPredicate which) {
        return Published.RUNS.stream().map(Run::row).filter(which::test).collect(Collectors.toSet());
    }

    private static String table(int row) {
        return Published.run(row).table();
    }

    private static double error(int row) {
        return (mbps(row) - Published.run(row).mbps()) / Published.run(row).mbps() * 100;
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
