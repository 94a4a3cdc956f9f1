package io.gpdedup.bench.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.BenchRun;
import io.gpdedup.bench.report.RunFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code gpdedup-bench model} with what-if options: a site's own cluster through the seed's model. */
class WhatIfTest {
    static final String[] SEED_ARGS = {"--hosts", "22", "--segments-per-host", "8", "--tables", "31200", "--data", "3TiB",
        "--empty-fraction", "0.28", "--jobs", "15", "--copy-queue-size", "20"};

    static ApplianceProfile profile;
    static Reproduction reproduction;

    @BeforeAll
    static void reproduce() {
        profile = ApplianceProfile.load(ModelReproductionTest.SEED);
        reproduction = new Reproduction(profile, Cluster.seed003(), TableMix.seed003()).run();
    }

    /** The what-if the command line {@code args} describes. */
    private static WhatIf parse(String... args) {
        ModelCommand command = new ModelCommand();
        new CommandLine(command).parseArgs(args);
        return command.whatIf.build(profile, command.segmentsPerHost);
    }

    @Test
    void theSeedsOwnParametersReproduceTablesDAndFExactly() {
        WhatIf w = parse(SEED_ARGS);
        assertEquals(Cluster.seed003(), w.cluster());
        assertEquals(TableMix.seed003().tables(), w.mix().tables(), "the seed's shape at the seed's size is the seed's database");
        for (Published.Run run : Published.RUNS) {
            if (run.table().equals("D") || run.table().equals("F")) {
                assertEquals(reproduction.runs().get(run.row()), w.model().run(run.scenario()), "row " + run.row());
            }
        }
        Map<String, Integer> rowOf = Map.of("backup, jobs", 1, "repeat backup, jobs", 2, "backup, single-data-file", 3,
                "repeat backup, single-data-file", 4);
        List<WhatIf.Prediction> predictions = w.predict();
        for (WhatIf.Prediction p : predictions) {
            if (rowOf.containsKey(p.run())) {
                assertEquals(reproduction.runs().get(rowOf.get(p.run())), p.result(), p.run());
            }
        }
        // the restore is the whole database at the backup's queue, not F's large tables at queue 5
        WhatIf.Prediction restore = predictions.get(predictions.size() - 1);
        assertTrue(restore.scenario().restore());
        assertEquals(20, restore.scenario().copyQueue());
    }

    @Test
    void optionsNotGivenKeepTheSeedsValues() {
        WhatIf only = parse("--jobs", "15");
        WhatIf all = parse(SEED_ARGS);
        assertEquals(all.cluster(), only.cluster());
        assertEquals(all.mix().tables(), only.mix().tables());
        assertEquals(all.predict().get(0).result(), only.predict().get(0).result());
    }

    @Test
    void theMinutesOfEachRunAddUpAndJobsModeWaitsOnFiles() {
        for (WhatIf.Prediction p : parse(SEED_ARGS).predict()) {
            double sum = 0;
            for (double m : p.minutesByCost()) {
                assertTrue(m >= -1e-6, p.run() + ": a cost taken away never makes the run slower: " + m);
                sum += m;
            }
            assertEquals(p.result().minutes(), sum, 1e-6, p.run());
            double files = p.minutesByCost()[0];
            if (p.scenario().mode() == Published.Mode.JOBS) {
                assertTrue(files > 0.9 * p.result().minutes(), p.run() + ": the per-file work is the jobs-mode time, " + files);
            } else {
                assertEquals(0, files, 1e-9, "single-data-file writes no file per table");
            }
        }
    }

    @Test
    void theJobsGapFollowsTheTableCountAndTheDataTheDataSize() {
        List<WhatIf.Prediction> seed = parse(SEED_ARGS).predict();
        List<WhatIf.Prediction> tenthOfTables = parse("--tables", "3120").predict();
        List<WhatIf.Prediction> twiceTheData = parse("--data", "6TiB").predict();
        // a tenth of the tables: a tenth of the files, about a tenth of the per-file minutes (a
        // little more is hidden behind the rest when there is less of it)
        double ratio = seed.get(0).minutesByCost()[0] / tenthOfTables.get(0).minutesByCost()[0];
        assertTrue(ratio > 9 && ratio < 12, "per-file minutes, all tables against a tenth: " + ratio);
        // twice the data: twice the minutes moving it, the per-table costs as they were
        int data = WhatIf.COSTS.size() - 1;
        assertEquals(2 * seed.get(1).minutesByCost()[data], twiceTheData.get(1).minutesByCost()[data], 0.02 * seed.get(1).minutesByCost()[data]);
        assertEquals(seed.get(1).minutesByCost()[3], twiceTheData.get(1).minutesByCost()[3], 1e-9);
        // a deeper queue hides the COPY start a queue of 2 cannot
        List<WhatIf.Prediction> shallow = parse("--copy-queue-size", "2").predict();
        assertTrue(shallow.get(1).minutesByCost()[2] > 1, "queue 2: COPY start shows, " + shallow.get(1).minutesByCost()[2]);
        assertTrue(seed.get(1).minutesByCost()[2] < 0.01, "queue 20 hides all but the first start");
    }

    @Test
    void theCommandPrintsTheTablesAndDrawsTheChart(@TempDir Path dir) throws IOException {
        Path out = dir.resolve("whatif");
        BenchRun run = BenchRun.of("model", "--profile", ModelReproductionTest.SEED.toString(), "--hosts", "4", "--tables", "2000", "--data", "500GiB",
                "--out", out.toString());
        assertEquals(0, run.exit(), run.err());
        assertTrue(run.out().contains("what-if: 4 hosts x 8 segments; 2,000 tables (28% empty), 0.49 TiB of table data"), run.out());
        for (String row : List.of("backup, jobs", "backup, single-data-file", "repeat backup, jobs", "repeat backup, single-data-file",
                "restore, single-data-file")) {
            assertTrue(run.out().contains(row), row + " in\n" + run.out());
        }
        assertTrue(Files.size(out.resolve("whatif.png")) > 1000);
        List<List<String>> rows = RunFiles.readCsv(out.resolve("whatif.csv"));
        assertEquals(List.of("run", "jobs", "queue", "minutes", "hours", "MB/s"), rows.get(0));
        assertEquals(6, rows.size());
        assertTrue(Files.readString(out.resolve("run.json")).contains("--tables 2000 --data 500GiB"));
    }

    @Test
    void badWhatIfInputIsOneLineAndExitTwo() {
        for (String[] args : List.of(new String[] {"--tables", "5"}, new String[] {"--empty-fraction", "0.95"},
                new String[] {"--hosts", "0"}, new String[] {"--jobs", "0"}, new String[] {"--hosts", "4", "--check"},
                new String[] {"--data", "lots"})) {
            String[] model = new String[args.length + 1];
            model[0] = "model";
            System.arraycopy(args, 0, model, 1, args.length);
            BenchRun run = BenchRun.of(model);
            assertTrue(run.exit() == 2, String.join(" ", args) + ": exit " + run.exit());
            assertEquals(1, run.err().strip().lines().count(), String.join(" ", args) + ":\n" + run.err());
            assertTrue(!run.err().contains("Exception"), run.err());
        }
    }
}
