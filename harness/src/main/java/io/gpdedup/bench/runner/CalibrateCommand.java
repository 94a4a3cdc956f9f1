package io.gpdedup.bench.runner;

import io.gpdedup.appliance.ApplianceProfile;
import io.gpdedup.bench.model.Calibrated;
import io.gpdedup.bench.model.ReferenceSize;
import io.gpdedup.bench.report.Figures;
import io.gpdedup.bench.model.StoreCalibration;
import io.gpdedup.bench.report.Progress;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import io.gpdedup.client.ClientSettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code gpdedup-bench calibrate}: the reference measurement's stream tests live against one store
 * simulating the profile, next to the reference measurement and the model's, and whether the
 * profile validates; or, with {@code --host}, a profile of the admin's own store for the model.
 */
@Command(name = "calibrate", mixinStandardHelpOptions = true,
        exitCodeListHeading = Commands.EXIT_HEADING,
        exitCodeList = {Commands.EXIT_OK, Commands.EXIT_FAILED, Commands.EXIT_USAGE, Commands.EXIT_SHAPE},
        description = {"Runs the reference measurement's stream tests live (connchk, isolated 1 host x 1/10/20 files, 2/4/8 hosts "
                + "x 10 files, and the tail as files finish) against one gpdedup-store serving through the appliance profile (default: "
                + "the built-in reference appliance), and compares every cell with the reference measurement and the model's prediction.",
            "The profile validates when the live shapes hold (20 threads beat 10 and 1, 30 fall below 20, 20 files no better than "
                + "10, 8 hosts share the same total as 4, hosts share evenly) and every measured cell is within 20%%.",
            "--quick: connchk 1/10/20/30 threads and isolated 4/8 hosts on less data, shape checks only (about 2 minutes).",
            "With --host: measures that real gpdedup-store instead (connchk's write, repeat and verified read per thread count, "
                + "request round trips, small objects) and writes a profile of your store that `gpdedup-bench model --profile FILE` uses "
                + "to predict your own cluster; what it wrote is deleted at the end. A calibration with fewer than "
                + Calibrated.MIN_THREAD_COUNTS + " thread counts or a transfer shorter than " + (int) Calibrated.MIN_PASS_SECONDS
                + " s is too brief to trust: model warns. See docs/appliance.md."})
public final class CalibrateCommand implements Callable<Integer> {
    @Option(names = "--quick", description = "the CI variant: fewer, smaller runs, shape checks only")
    boolean quick;

    @Mixin
    LiveOptions live;

    @Mixin
    StoreTarget target;

    @Option(names = "--threads", split = ",", paramLabel = "N[,N...]", description = "with --host: thread counts, 1 among them (default: 1,5,10,20,30)")
    int[] threads;

    @Option(names = "--size", paramLabel = "SIZE", converter = ReferenceSize.class, description = "with --host: bytes per thread (default: 1GiB)")
    Long size;

    @Option(names = "--files", paramLabel = "N", description = "with --host: small objects to write at the most threads (default: ${DEFAULT-VALUE})")
    int files = 2000;

    @Option(names = "--name", paramLabel = "NAME", description = "with --host: the profile's name (default: store-HOST)")
    String name;

    @Option(names = "--write-profile", paramLabel = "FILE", description = "with --host: where to write the profile (default: ./NAME.yaml)")
    Path profileOut;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        return Commands.runReportingUsageErrors(spec, this::run);
    }

    private int run() throws Exception {
        if (target.given()) {
            StoreTarget.refuse("--quick", quick);
            live.refuseWithRealStore();
            return realStore();
        }
        target.refuseWithoutHost();
        for (Object withHost : new Object[] {threads, size, name, profileOut}) {
            if (withHost != null) {
                throw new IllegalArgumentException("--threads, --size, --name and --write-profile need --host");
            }
        }
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
            List<ChannelRun.Row> a;
            List<IsolatedRun.Run> bc = new ArrayList<>();
            IsolatedRun.Tail tail = null;
            try (Progress p = live.quiet ? Progress.quiet() : Progress.bytes("calibrate", total)) {
                a = ChannelRun.run(s, aThreads, aSize, false, p);
                for (int[] ht : isolated) {
                    bc.addAll(IsolatedRun.run(s, new int[] {ht[0]}, new int[] {ht[1]}, fileSize, p));
                }
                if (!quick) {
                    tail = IsolatedRun.tail(s, 10, 2, tailShort, p);
                }
            }
            double minutes = (System.nanoTime() - started) / 60e9;
            ResultTable aTable = ChannelRun.table(a, aSize, s.liveBytes(aSize), false);
            ResultTable bcTable = IsolatedRun.table(bc, fileSize);
            aTable.print(System.out);
            System.out.println();
            bcTable.print(System.out);
            System.out.println();
            ResultTable tailTable = tail == null ? null : IsolatedRun.tailTable(tail);
            if (tailTable != null) {
                tailTable.print(System.out);
                System.out.println();
            }
            ShapeChecks aChecks = ChannelRun.checks(a, !quick);
            ShapeChecks bcChecks = IsolatedRun.checks(bc, !quick);
            aChecks.print(System.out);
            System.out.println();
            bcChecks.print(System.out);
            boolean validates = aChecks.passed() && bcChecks.passed();
            System.out.printf(Locale.ROOT, "%nprofile (%s) at scale %s: %s (live suite: %.1f min)%n",
                    s.profileName(), Figures.significant(s.profile().scale(), 3),
                    validates ? "VALIDATES" : "DOES NOT VALIDATE", minutes);
            if (live.out != null) {
                RunFiles files = RunFiles.in(live.out);
                ChannelRun.write(files, "calibrate-a", a, aTable);
                IsolatedRun.write(files, "calibrate-bc", bc, bcTable);
                if (tailTable != null) {
                    files.table("calibrate-b-tail", tailTable);
                }
                files.table("calibrate-a-checks", aChecks.table());
                files.table("calibrate-bc-checks", bcChecks.table());
                List<String> notes = new ArrayList<>(Commands.notes(s));
                notes.add(String.format(Locale.ROOT, "live suite took %.1f minutes; the profile %s", minutes,
                        validates ? "validates" : "does not validate"));
                files.info("gpdedup-bench calibrate" + (quick ? " --quick" : ""), Commands.commandLine(spec), notes);
            }
            return validates ? 0 : 3;
        }
    }

    /** Small objects are one chunk each, as the small tables of jobs mode are per segment. */
    static final int FILE_BYTES = 64 * 1024;

    /** Measures the real store of {@link #target} and writes its profile. */
    private int realStore() throws Exception {
        int[] t = threads != null ? threads : new int[] {1, 5, 10, 20, 30};
        long bytes = size != null ? size : ReferenceSize.parse("1GiB");
        if (Arrays.stream(t).anyMatch(n -> n < 1 || n > 200) || Arrays.stream(t).noneMatch(n -> n == 1)) {
            throw new IllegalArgumentException("--threads: each count must be 1..200, and 1 must be among them");
        }
        if (files < 1) {
            throw new IllegalArgumentException("--files must be at least 1");
        }
        ClientSettings settings = target.settings();
        String profileName = name != null ? name : "store-" + settings.host();
        Path file = profileOut != null ? profileOut : Path.of(profileName + ".yaml");
        target.check(settings);
        int top = Arrays.stream(t).max().orElseThrow();
        List<StoreCheck.Row> rows;
        boolean measured = false;
        double ping;
        StoreCheck.FileRate alone;
        StoreCheck.FileRate many;
        StoreCheck check = new StoreCheck(settings);
        try (Progress p = live.quiet ? Progress.quiet() : Progress.bytes("calibrate", 3 * Arrays.stream(t).sum() * bytes)) {
            rows = check.runAll(t, bytes, true, p);
            p.message("requests and small objects");
            ping = check.pingMillis(200);
            alone = check.files(1, Math.max(10, files / 10), FILE_BYTES);
            many = check.files(top, Math.max(1, files / top), FILE_BYTES);
            measured = true;
        } finally {
            check.finish(measured, System.out);
        }
        ResultTable table = StoreCheck.table(check.title(bytes), rows);
        table.print(System.out);
        System.out.printf(Locale.ROOT, "requests: %s ms median round trip; small objects (%d KiB): %s ms each on one thread, "
                + "%s/s on %d threads%n%n", Figures.fixed(ping, 3), FILE_BYTES >> 10, Figures.fixed(alone.millisPerFile(), 2),
                Figures.fixed(many.filesPerSecond(), 0), many.threads());
        List<StoreCalibration.Measured> figures = rows.stream().map(r -> new StoreCalibration.Measured(r.threads(),
                StoreCheck.mbps(r.write()), StoreCheck.mbps(r.repeat()), StoreCheck.mbps(r.read()))).toList();
        StoreCalibration.Result r = StoreCalibration.solve(profileName, figures, ping,
                new StoreCalibration.Files(alone.millisPerFile(), many.threads(), many.filesPerSecond()));
        r.sources().print(System.out);
        System.out.println();
        r.fit().print(System.out);
        System.out.println();
        double busiest = rows.stream().mapToDouble(x -> Math.max(x.write().clientCpu(), x.read().clientCpu())).max().orElse(0);
        if (busiest > 0.9) {
            System.out.printf(Locale.ROOT, "note: this client used up to %.0f%% of its machine's CPU: the figures at the most threads may be "
                    + "the client's limit, not the store's%n", busiest * 100);
        }
        String header = String.join("\n", List.of(
                "# gpdedup-store at " + settings.host() + ":" + settings.port() + ", unit " + settings.unit() + ", measured "
                        + LocalDate.now() + " by",
                "#   " + Commands.commandLine(spec),
                "# through the dedup plugin's pipeline from one client host (docs/appliance.md: your store's own profile).",
                "# Rates in MB/s (MB = 2^20 bytes), durations in ms; scale 1: a simulated store with it runs at the measured rates.",
                ""));
        Calibrated measuredHere = new Calibrated(settings.host(), settings.unit(), LocalDate.now(), rows.size(),
                rows.stream().flatMap(x -> java.util.stream.Stream.of(x.write(), x.repeat(), x.read())).mapToDouble(StoreCheck.Pass::seconds)
                        .min().orElse(0));
        Files.writeString(file, header + r.profile().toYaml() + measuredHere.toYaml(), StandardCharsets.UTF_8);
        if (!ApplianceProfile.load(file).equals(r.profile())) {
            throw new IllegalStateException("the profile written to " + file + " does not read back as written");
        }
        if (live.out != null) {
            RunFiles out = RunFiles.in(live.out);
            StoreCheck.write(out, "calibrate-store", table, rows);
            out.table("calibrate-store-profile", r.sources());
            out.table("calibrate-store-fit", r.fit());
            out.info("gpdedup-bench calibrate against " + settings.host() + ":" + settings.port(), Commands.commandLine(spec),
                    List.of(check.deletedLine(), "profile: " + file));
        }
        System.out.println(check.deletedLine());
        System.out.println("wrote the profile of your store (" + settings.host() + ", unit " + settings.unit() + ") to " + file
                + ": gpdedup-bench model --profile " + file + " [--hosts N ...] predicts your cluster with it");
        measuredHere.tooBrief().ifPresent(System.err::println);
        return 0;
    }
}
