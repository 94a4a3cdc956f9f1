package io.gpdedup.bench.runner;

import io.gpdedup.bench.model.ReferenceSize;
import io.gpdedup.bench.report.Progress;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpdedup-bench calibrate}: tables A to C live against one store, next to the published
 * figures and the model's, and whether the profile validates.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
        description = {"Runs tables A to C live (connchk, isolated 1 host x 1/10/20 files, 2/4/8 hosts x 10 files, and table B's "
                + "tail) against one gpdedup-store serving through the appliance profile, and compares every cell with the "
                + "published figure and the model's prediction.",
            "The profile validates when the live shapes hold (20 threads beat 10 and 1, 30 fall below 20, 20 files no better than "
                + "10, 8 hosts share the same total as 4, hosts share evenly) and every published cell is within 20%.",
            "--quick: connchk 1/10/20/30 threads and isolated 4/8 hosts on less data, shape checks only (about 2 minutes)."})
public final class CalibrateCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "the CI variant: fewer, smaller runs, shape checks only")
    boolean quick;

    @Mixin
    LiveOptions live;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        return Commands.runReportingUsageErrors(spec, this::run);
    }

    private int run() throws Exception {
        int[] aThreads = quick ? new int[] {1, 10, 20, 30} : new int[] {1, 5, 10, 20, 30};
        long aSize = ReferenceSize.parse(quick ? "256MB" : "1GB");
        long fileSize = ReferenceSize.parse(quick ? "512MB" : "2GB");
        long tailShort = ReferenceSize.parse("1GB");
        long started = System.nanoTime();
        try (LiveSession s = LiveSession.open(live)) {
            long total = 0;
            for (int n : aThreads) {
                total += n * s.liveBytes(aSize);
            }
            int[][] isolated = quick ? new int[][] {{4, 10}, {8, 10}} : new int[][] {{1, 1}, {1, 10}, {1, 20}, {2, 10}, {4, 10}, {8, 10}};
            for (int[] ht : isolated) {
                total += (long) ht[0] * ht[1] * s.liveBytes(fileSize);
            }
            if (!quick) {
                total += 8 * s.liveBytes(tailShort) + 2 * s.liveBytes(3 * tailShort);
            }
            List<ChannelTest.Row> a;
            List<IsolatedTest.Run> bc = new ArrayList<>();
            IsolatedTest.Tail tail = null;
            try (Progress p = live.quiet ? Progress.quiet() : Progress.bytes("calibrate", total)) {
                a = ChannelTest.run(s, aThreads, aSize, false, p);
                for (int[] ht : isolated) {
                    bc.addAll(IsolatedTest.run(s, new int[] {ht[0]}, new int[] {ht[1]}, fileSize, p));
                }
                if (!quick) {
                    tail = IsolatedTest.tail(s, 10, 2, tailShort, p);
                }
            }
            double minutes = (System.nanoTime() - started) / 60e9;
            ResultTable aTable = ChannelTest.table(a, aSize, false);
            ResultTable bcTable = IsolatedTest.table(bc, fileSize);
            aTable.print(System.out);
            System.out.println();
            bcTable.print(System.out);
            System.out.println();
            ResultTable tailTable = tail == null ? null : IsolatedTest.tailTable(tail);
            if (tailTable != null) {
                tailTable.print(System.out);
                System.out.println();
            }
            ShapeChecks aChecks = ChannelTest.checks(a, !quick);
            ShapeChecks bcChecks = IsolatedTest.checks(bc, !quick);
            aChecks.print(System.out);
            System.out.println();
            bcChecks.print(System.out);
            boolean validates = aChecks.passed() && bcChecks.passed();
            System.out.printf(java.util.Locale.ROOT, "%nprofile %s at scale %s: %s (live suite: %.1f min)%n", s.profile().name(),
                    s.profile().scale(), validates ? "VALIDATES" : "DOES NOT VALIDATE", minutes);
            if (live.out != null) {
                RunFiles files = RunFiles.in(live.out);
                ChannelTest.write(files, "calibrate-a", a, aTable);
                IsolatedTest.write(files, "calibrate-bc", bc, bcTable);
                if (tailTable != null) {
                    files.table("calibrate-b-tail", tailTable);
                }
                files.table("calibrate-a-checks", aChecks.table());
                files.table("calibrate-bc-checks", bcChecks.table());
                List<String> notes = new ArrayList<>(Commands.notes(s));
                notes.add(String.format(java.util.Locale.ROOT, "live suite took %.1f minutes; the profile %s", minutes,
                        validates ? "validates" : "does not validate"));
                files.info("gpdedup-bench calibrate" + (quick ? " --quick" : ""), Commands.commandLine(spec), notes);
            }
            return validates ? 0 : 3;
        }
    }
}
