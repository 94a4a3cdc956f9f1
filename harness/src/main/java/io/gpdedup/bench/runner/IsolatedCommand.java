package io.gpdedup.bench.runner;

import io.gpdedup.bench.model.ReferenceSize;
import io.gpdedup.bench.report.Progress;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code gpdedup-bench isolated}: the reference measurement's plugin tests (tables B and C) live. */
@Command(name = "isolated", mixinStandardHelpOptions = true,
        exitCodeListHeading = Commands.EXIT_HEADING,
        exitCodeList = {Commands.EXIT_OK, Commands.EXIT_FAILED, Commands.EXIT_USAGE, Commands.EXIT_SHAPE},
        description = {"Isolated plugin test, live: every simulated host is a process of its own with its own "
                + "loopback address (127.0.0.2, 127.0.0.3, ...) and disk read cap, running N real gpbackup_dedup_plugin backup_data "
                + "calls in parallel on unique random data fed through stdin, against a gpdedup-store started with the appliance profile.",
            "Every call is started and has its stream open at the store before the feed begins; a file is done when its call has "
                + "exited. Reports per-host and total MB/s (reference units) next to the reference measurement and the model's, and "
                + "per-second timelines measured at the store (--out)."})
public final class IsolatedCommand implements Callable<Integer> {
    @Option(names = "--hosts", split = ",", paramLabel = "N[,N...]", description = "host counts (default: 1; the reference measurement's: 2,4,8; --quick: 4,8)")
    int[] hosts;

    @Option(names = "--threads", split = ",", paramLabel = "N[,N...]",
            description = "files in parallel per host (default: 1,10,20 for one host, else 10; --quick: 10)")
    int[] threads;

    @Option(names = "--file-size", paramLabel = "SIZE", converter = ReferenceSize.class,
            description = "reference size of each file (default: 2GB; --quick: 512MB)")
    Long size;

    @Option(names = "--quick", description = "4 and 8 hosts x 10 files on less data, shape checks only (8 hosts share what 4 share)")
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
        int[] h = hosts != null ? hosts : quick ? new int[] {4, 8} : new int[] {1};
        boolean oneHost = h.length == 1 && h[0] == 1;
        int[] t = threads != null ? threads : oneHost && !quick ? new int[] {1, 10, 20} : new int[] {10};
        long bytes = size != null ? size : ReferenceSize.parse(quick ? "512MB" : "2GB");
        if (Arrays.stream(h).anyMatch(n -> n < 1 || n > 64)) {
            throw new IllegalArgumentException("--hosts: each count must be 1..64 (host h gets 127.0.0.(h+1))");
        }
        if (Arrays.stream(t).anyMatch(n -> n < 1 || n > 100)) {
            throw new IllegalArgumentException("--threads: each count must be 1..100");
        }
        try (LiveSession s = LiveSession.open(live)) {
            long total = 0;
            for (int hh : h) {
                for (int tt : t) {
                    total += hh * tt * s.liveBytes(bytes);
                }
            }
            List<IsolatedRun.Run> runs;
            try (Progress p = live.quiet ? Progress.quiet() : Progress.bytes("isolated", total)) {
                runs = IsolatedRun.run(s, h, t, bytes, p);
            }
            ResultTable table = IsolatedRun.table(runs, bytes);
            table.print(System.out);
            ShapeChecks checks = IsolatedRun.checks(runs, !quick);
            checks.print(System.out);
            if (live.out != null) {
                RunFiles files = RunFiles.in(live.out);
                IsolatedRun.write(files, "isolated", runs, table);
                files.table("isolated-checks", checks.table());
                files.info("gpdedup-bench isolated", Commands.commandLine(spec), Commands.notes(s));
            }
            return checks.passed() ? 0 : 3;
        }
    }
}
