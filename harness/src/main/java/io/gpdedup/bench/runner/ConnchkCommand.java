package io.gpdedup.bench.runner;

import io.gpdedup.bench.model.ReferenceSize;
import io.gpdedup.bench.report.Progress;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import io.gpdedup.client.ClientSettings;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code gpdedup-bench connchk}: the channel test against a simulated reference appliance, or against a real store. */
@Command(name = "connchk", mixinStandardHelpOptions = true,
        exitCodeListHeading = Commands.EXIT_HEADING,
        exitCodeList = {Commands.EXIT_OK, Commands.EXIT_FAILED, Commands.EXIT_USAGE, Commands.EXIT_SHAPE},
        description = {"Synthetic channel test, live: N threads each write one file of unique data straight to a "
                + "gpdedup-store started with the appliance profile (client library, no plugin, no dedup lookups).",
            "Without --profile the store simulates the built-in reference appliance. Sizes are in its units (MB = 2^20) and scaled "
                + "by the profile's scale for the live run; results are reported back in its MB/s next to the reference measurement "
                + "and the model's.",
            "With --host: against that real gpdedup-store instead, as ddpconnchk against an appliance: N threads each write "
                + "--size of unique data through the dedup plugin's client and pipeline, read it back checking SHA-256, and "
                + "report write and read MB/s per thread count; what it wrote is deleted at the end."})
public final class ConnchkCommand implements Callable<Integer> {
    @Option(names = "--threads", split = ",", paramLabel = "N[,N...]", description = "thread counts (default: 1,5,10,20,30; --quick: 1,10,20,30)")
    int[] threads;

    @Option(names = "--size", paramLabel = "SIZE", converter = ReferenceSize.class,
            description = "reference size written per thread (default: 1GB; --quick: 256MB)")
    Long size;

    @Option(names = "--read", description = "also read every file back and report restore MB/s")
    boolean read;

    @Option(names = "--quick", description = "fewer, smaller runs, and the shape checks only (20 beat 10 and 1, 30 below 20)")
    boolean quick;

    @Mixin
    LiveOptions live;

    @Mixin
    StoreTarget target;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        return Commands.runReportingUsageErrors(spec, this::run);
    }

    private int run() throws Exception {
        int[] t = threads != null ? threads : quick ? new int[] {1, 10, 20, 30} : new int[] {1, 5, 10, 20, 30};
        long bytes = size != null ? size : ReferenceSize.parse(quick ? "256MB" : "1GB");
        if (Arrays.stream(t).anyMatch(n -> n < 1 || n > 200)) {
            throw new IllegalArgumentException("--threads: each count must be 1..200");
        }
        if (target.given()) {
            StoreTarget.refuse("--quick", quick);
            StoreTarget.refuse("--read (a real store is always read back)", read);
            live.refuseWithRealStore();
            return realStore(t, bytes);
        }
        target.refuseWithoutHost();
        try (LiveSession s = LiveSession.open(live)) {
            long total = Arrays.stream(t).sum() * s.liveBytes(bytes) * (read ? 2 : 1);
            List<ChannelRun.Row> rows;
            try (Progress p = live.quiet ? Progress.quiet() : Progress.bytes("connchk", total)) {
                rows = ChannelRun.run(s, t, bytes, read, p);
            }
            ResultTable table = ChannelRun.table(rows, bytes, s.liveBytes(bytes), read);
            table.print(System.out);
            ShapeChecks checks = ChannelRun.checks(rows, !quick);
            checks.print(System.out);
            if (live.out != null) {
                RunFiles files = RunFiles.in(live.out);
                ChannelRun.write(files, "connchk", rows, table);
                files.table("connchk-checks", checks.table());
                files.info("gpdedup-bench connchk", Commands.commandLine(spec), Commands.notes(s));
            }
            return checks.passed() ? 0 : 3;
        }
    }

    /** The channel test against the real store of {@link #target}: write, verified read, delete. */
    private int realStore(int[] t, long bytes) throws InterruptedException {
        ClientSettings settings = target.settings();
        target.check(settings);
        List<StoreCheck.Row> rows = null;
        StoreCheck check = new StoreCheck(settings);
        try (Progress p = live.quiet ? Progress.quiet() : Progress.bytes("connchk", 2 * Arrays.stream(t).sum() * bytes)) {
            rows = check.runAll(t, bytes, false, p);
        } finally {
            check.finish(rows != null, System.out);
        }
        ResultTable table = StoreCheck.table(check.title(bytes), rows);
        table.print(System.out);
        System.out.println(check.deletedLine());
        if (live.out != null) {
            RunFiles files = RunFiles.in(live.out);
            StoreCheck.write(files, "connchk", table, rows);
            files.info("gpdedup-bench connchk against " + settings.host() + ":" + settings.port(), Commands.commandLine(spec),
                    List.of(check.deletedLine()));
        }
        return 0;
    }
}
