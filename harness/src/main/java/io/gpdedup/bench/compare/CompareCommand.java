package io.gpdedup.bench.compare;

import io.gpdedup.bench.workload.TableShapeConverter;
import io.gpdedup.pg.TableShape;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gpdedup-bench compare}: gpdedup against restic and borg on the same COPY-text streams
 * (a generated table or a user's file, and three changed versions of it), with the targets as
 * ratios. Progress on stderr, the markdown report on stdout.
 */
@Command(name = "compare", mixinStandardHelpOptions = true,
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:done", "1:failed (one line on stderr)", "2:bad options (one line on stderr)",
            "3:a step of some tool failed: left out of the figures, its logs kept"},
        description = {"Backs up, changes and restores the same generated PostgreSQL COPY-text streams with gpdedup, restic and borg.",
            "Prints throughput, repository growth and bytes sent next to the targets.",
            "Needs restic and borg on PATH for those columns (scripts/bench-dedup installs them)."})
public final class CompareCommand implements Callable<Integer> {
    static final long QUICK_SIZE = 128 * ByteSize.MIB;
    /** JDK 25's CPU-time sampler sees threads in native code (zstd, socket I/O) too; older JDKs ignore unknown events. */
    static final String CPU_TIME_SAMPLES = "jdk.CPUTimeSample#enabled=true";
    static final List<String> ALL_TOOLS = List.of(Report.GPDEDUP, Report.RESTIC, Report.BORG, Report.GPDEDUP_S3, Report.GPDEDUP_ENCRYPTED);
    static final List<String> DEFAULT_TOOLS = List.of(Report.GPDEDUP, Report.RESTIC, Report.BORG);

    @Option(names = "--size", paramLabel = "SIZE", description = "size of the base stream (default 1GiB; --quick: 128MiB)")
    String size;

    @Option(names = "--quick", description = "smoke test: a 128 MiB stream, one round")
    boolean quick;

    @Option(names = "--rounds", paramLabel = "N", description = "rounds, each with fresh repositories (default 2; --quick: 1)")
    Integer rounds;

    @Option(names = "--tools", split = ",", paramLabel = "TOOL", description = "tools to run (default gpdedup,restic,borg); gpdedup-s3 is "
            + "gpdedup with the store's units in a bucket (--s3-endpoint), compared with gpdedup on local disk; gpdedup-encrypted is "
            + "gpdedup with the store's units encrypted at rest, compared with gpdedup unencrypted")
    List<String> tools = new ArrayList<>(DEFAULT_TOOLS);

    @Option(names = "--s3-endpoint", paramLabel = "URL", description = "for gpdedup-s3: the S3 server (e.g. scripts/s3proxy's), "
            + "its credentials in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
    String s3Endpoint;

    @Option(names = "--s3-bucket", paramLabel = "NAME", description = "for gpdedup-s3: an existing bucket (default gpdedup); each round uses a prefix of its own")
    String s3Bucket = "gpdedup";

    @Option(names = "--work-dir", paramLabel = "DIR", description = "parent of the scratch directory; on a real disk, not tmpfs (default /var/tmp)")
    Path workDir = Path.of("/var/tmp");

    @Option(names = "--keep", description = "keep streams, repositories and logs")
    boolean keep;

    @Option(names = "--streams", paramLabel = "DIR", description = "keep the streams in DIR and reuse them on later runs "
            + "with the same table, size and seed, or the same --copy-file and seed (default: write them into the scratch directory and "
            + "delete them)")
    Path streamsDir;

    @Option(names = "--seed", description = "workload seed (default 1)")
    long seed = 1;

    @Option(names = "--copy-file", paramLabel = "FILE", description = "instead of a generated table, the COPY-text file of a real table "
            + "(COPY t TO 'FILE'): backed up as it is, then changed row by row as the generated tables are; --size and --table "
            + "do not apply")
    Path copyFile;

    @Option(names = "--table", paramLabel = "NAME", defaultValue = "orders", converter = TableShapeConverter.class,
            description = "the table the streams are COPY text of: orders (long free-text notes, the default), lineitem "
            + "(a fact table of keys, numerics, dates and codes) or accounts (pgbench's: integers and a blank filler, highly compressible)")
    TableShape shape;

    @Option(names = "--dist", paramLabel = "DIR", description = "gpdedup installation with bin/ and lib/ (default: the one this command runs from)")
    Path dist;

    @Option(names = "--borg-encryption", paramLabel = "MODE", description = "borg init -e MODE: none (default, like gpdedup) or repokey-blake2")
    String borgEncryption = "none";

    @Option(names = "--borg-compression", paramLabel = "SPEC", description = "borg create --compression SPEC, e.g. zstd,3 (default: borg's own, lz4)")
    String borgCompression;

    @Option(names = "--plugin-option", paramLabel = "KEY=VALUE", description = "extra dedup plugin option, e.g. compression=lz4 (repeatable)")
    Map<String, String> pluginOptions = new LinkedHashMap<>();

    @Option(names = "--warm-up", arity = "0..1", paramLabel = "SIZE", fallbackValue = DEFAULT_WARM_UP, description = "before measuring, back SIZE "
            + "(default " + DEFAULT_WARM_UP + ") of unrelated rows up through each store and host agent gpdedup starts, so that its figures are those of "
            + "a store in service (JVMs started, code compiled; the larger SIZE, the more of it compiled); restic and borg have nothing to warm")
    String warmUp;

    private static final String DEFAULT_WARM_UP = "128MiB";

    /** With --warm-up, the stream every gpdedup store and agent back up before the first step; shares no row with the measured ones. */
    private StreamFile warmUpStream;

    @Option(names = "--flight-recordings", paramLabel = "DIR", description = "instead of comparing: one round of gpdedup's first and repeat backups and a "
            + "restore, with flight recordings (JFR) of the plugin and the store written to DIR (of the store on S3 when --tools names gpdedup-s3)")
    Path profile;

    @Option(names = "--agent", paramLabel = "MODE", description = "GPDEDUP_AGENT for the plugin calls: on, off or require (default: unset, "
            + "which the launcher takes as on)")
    String agent;

    @Option(names = "--concurrent", split = ",", paramLabel = "N", description = "after the rounds, first backups of N unrelated streams at once "
            + "(SIZE in all): gpdedup into one store, restic and borg with a repository per stream; default 2,8; 0 for none")
    List<Integer> concurrent = new ArrayList<>(List.of(2, 8));

    @Option(names = "--timeout", paramLabel = "SECONDS", description = "longest any one command may run (default 1800)")
    long timeoutSeconds = 1800;

    private boolean keepAfterFailure;

    @Override
    public Integer call() throws Exception {
        PrintStream out = System.out;
        PrintStream progress = System.err;
        long bytes;
        long warmUpBytes;
        try {
            bytes = size != null ? ByteSize.parse(size) : quick ? QUICK_SIZE : ByteSize.GIB;
            warmUpBytes = warmUp != null ? ByteSize.parse(warmUp) : 0;
        } catch (IllegalArgumentException e) {
            return badInput(e.getMessage());
        }
        int n = rounds != null ? rounds : quick || profile != null ? 1 : 2;
        if (n < 1) {
            return badInput("--rounds must be at least 1");
        }
        if (agent != null && !List.of("on", "off", "require").contains(agent)) {
            return badInput("--agent must be on, off or require, got '" + agent + "'");
        }
        if (copyFile != null && !Files.isReadable(copyFile)) {
            return badInput("--copy-file: cannot read " + copyFile);
        }
        for (String t : tools) {
            if (!ALL_TOOLS.contains(t)) {
                return badInput("unknown tool '" + t + "'; tools are " + ALL_TOOLS);
            }
        }
        if (tools.contains(Report.GPDEDUP_S3) && s3Endpoint == null) {
            return badInput("gpdedup-s3 needs --s3-endpoint (start one with scripts/s3proxy)");
        }
        // A profile records one gpdedup: on a bucket when --tools names gpdedup-s3.
        List<String> runTools = profile == null ? List.copyOf(tools) : List.of(tools.contains(Report.GPDEDUP_S3) ? Report.GPDEDUP_S3 : Report.GPDEDUP);
        List<Step> steps = profile != null ? List.of(Step.FIRST, Step.REPEAT, Step.RESTORE) : List.of(Step.values());
        boolean gpdedup = runTools.contains(Report.GPDEDUP) || runTools.contains(Report.GPDEDUP_S3) || runTools.contains(Report.GPDEDUP_ENCRYPTED);
        Path home = !gpdedup ? null : dist != null ? dist : installation();
        GpdedupCommands commands = gpdedup ? GpdedupCommands.installed(home) : null;
        if (profile != null) {
            Files.createDirectories(profile);
        }
        String load0 = ProcStat.loadAverage();
        Instant started = Instant.now();
        Path scratch = Files.createTempDirectory(Files.createDirectories(workDir), "gpdedup-bench-compare-");
        progress.println("scratch directory " + scratch + "; load average " + load0);
        try {
            progress.println("streams: " + (copyFile != null ? copyFile + " and three changed versions of it"
                    : shape.label() + " table, base " + ByteSize.binary(bytes) + " and three changed versions")
                    + (streamsDir != null ? ", reused from " + streamsDir + " when there" : "") + " ...");
            long g0 = System.nanoTime();
            int threads = Math.min(2, Runtime.getRuntime().availableProcessors());
            StreamSet streams = copyFile != null && streamsDir != null ? CopyFileStreams.reuseOrMake(copyFile, streamsDir, seed)
                    : copyFile != null ? CopyFileStreams.of(copyFile, scratch.resolve("streams"), seed)
                    : streamsDir != null ? StreamSet.reuseOrGenerate(streamsDir, shape, bytes, seed, threads)
                    : StreamSet.generate(scratch.resolve("streams"), shape, bytes, seed, threads);
            if (warmUp != null) {
                warmUpStream = StreamSet.unrelated(scratch.resolve("warm-up"), TableShape.ORDERS, warmUpBytes, 1, seed + 2000, threads).get(0);
            }
            progress.printf(Locale.ROOT, "streams ready in %.1f s%n", (System.nanoTime() - g0) / 1e9);
            Path logs = scratch.resolve("logs");
            GpdedupCommands gp = commands;
            Map<String, String> versions = new LinkedHashMap<>();
            Map<String, String> settings = new LinkedHashMap<>();
            Comparison comparison = new Comparison(streams, runTools, (name, dir) -> tool(name, dir, logs, gp), steps, progress);
            List<Observation> observations = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                progress.println("round " + (r + 1) + " of " + n + ", load average " + ProcStat.loadAverage());
                Path roundDir = scratch.resolve("round-" + (r + 1));
                if (r == 0) {
                    for (String t : runTools) {
                        BackupTool tool = tool(t, roundDir.resolve(t), logs, gp);
                        versions.put(t, tool.version());
                        settings.put(t, tool.settings());
                    }
                }
                List<Observation> round = comparison.round(r, roundDir);
                observations.addAll(round);
                if (!keep && round.stream().noneMatch(Observation::failed)) {
                    delete(roundDir);
                }
            }
            List<ConcurrentBackups.Result> batches = profile != null ? List.of()
                    : concurrentBackups(shape, copyFile != null ? streams.base().length() : bytes, runTools, scratch, logs, gp, progress);
            String load1 = ProcStat.loadAverage();
            Report report = new Report(streams, runTools, observations, batches);
            out.print(header(shape, streams, n, versions, settings, load0, load1, Duration.between(started, Instant.now())));
            out.println();
            out.print(report.figures());
            out.println();
            out.print(report.gpdedupCosts());
            if (!batches.isEmpty()) {
                out.println();
                out.print(report.concurrentTable());
            }
            if (profile == null) {
                out.println();
                out.print(report.targetTable());
                out.println();
                out.println(report.scatteredNote());
            } else {
                out.println();
                out.println("flight recordings in " + profile.toAbsolutePath() + ": <step>-plugin.jfr and <step>-store.jfr per step");
            }
            List<String> failures = report.failures();
            if (!failures.isEmpty()) {
                out.println();
                out.println("FAILED steps (left out of the figures above; logs kept in " + scratch + "/logs):");
                failures.forEach(f -> out.println("- " + f));
                keepAfterFailure = true;
                return 3;
            }
            return 0;
        } catch (IOException | RuntimeException e) {
            // Worth keeping only when some tool ran and left logs; a failure before (the streams) leaves nothing to look at.
            keepAfterFailure = Files.isDirectory(scratch.resolve("logs"));
            throw e;
        } finally {
            if (keep) {
                progress.println("kept " + scratch);
            } else if (keepAfterFailure) {
                delete(scratch.resolve("streams"));
                progress.println("kept " + scratch + " (without the streams) to look at the logs of what failed");
            } else {
                delete(scratch);
            }
        }
    }

    /** Bad options: one line on stderr and exit code 2, before anything is generated or run. */
    private static int badInput(String message) {
        System.err.println("gpdedup-bench compare: " + message);
        return 2;
    }

    private List<ConcurrentBackups.Result> concurrentBackups(TableShape shape, long bytes, List<String> runTools, Path scratch, Path logs, GpdedupCommands gp,
            PrintStream progress) throws IOException {
        List<ConcurrentBackups.Result> out = new ArrayList<>();
        for (int n : concurrent) {
            if (n < 2) {
                continue;
            }
            Path dir = scratch.resolve("concurrent-" + n);
            progress.println(n + " concurrent streams of " + ByteSize.binary(bytes / n) + ", load average " + ProcStat.loadAverage() + " ...");
            List<StreamFile> streams = copyFile != null ? CopyFileStreams.pieces(copyFile, dir.resolve("streams"), n)
                    : StreamSet.unrelated(dir.resolve("streams"), shape, bytes, n, seed, Math.min(2, Runtime.getRuntime().availableProcessors()));
            for (String t : runTools) {
                if (t.equals(Report.GPDEDUP_S3) || t.equals(Report.GPDEDUP_ENCRYPTED)) {
                    continue;
                }
                List<BackupTool> tools = new ArrayList<>();
                if (t.equals(Report.GPDEDUP)) {
                    tools.add(tool(t, dir.resolve(t), logs.resolve("concurrent-" + n), gp));
                } else {
                    for (int i = 0; i < n; i++) {
                        tools.add(tool(t, dir.resolve(t + "-" + i), logs.resolve("concurrent-" + n), gp));
                    }
                }
                ConcurrentBackups.Result r = ConcurrentBackups.run(t, tools, streams);
                out.add(r);
                progress.println(r.failure() != null ? String.format(Locale.ROOT, "  %d streams  %-8s FAILED: %s", n, t, r.failure())
                        : String.format(Locale.ROOT, "  %d streams  %-8s %7.2f s %8.1f MiB/s in all, %.2f CPU s per GB", n, t,
                                r.wallNanos() / 1e9, r.mibPerSecond(), r.cpuSecondsPerGB()));
            }
            if (!keep && out.stream().noneMatch(r -> r.failure() != null)) {
                delete(dir);
            }
        }
        return out;
    }

    private BackupTool tool(String name, Path dir, Path logs, GpdedupCommands commands) {
        return switch (name) {
            case Report.GPDEDUP -> warmed(new GpdedupTool(commands, dir, logs, pluginOptions, profile == null ? null : profile.toAbsolutePath(),
                    agent, timeoutSeconds));
            case Report.RESTIC -> new ResticTool(dir, logs, timeoutSeconds);
            case Report.BORG -> new BorgTool(dir, logs, borgEncryption, borgCompression, timeoutSeconds);
            case Report.GPDEDUP_S3 -> warmed(new GpdedupTool(commands, dir, logs, pluginOptions, profile == null ? null : profile.toAbsolutePath(),
                    agent, timeoutSeconds,
                    new GpdedupTool.Bucket(s3Endpoint, s3Bucket, "bench-" + System.currentTimeMillis() + "-" + dir.getParent().getFileName() + "/")));
            case Report.GPDEDUP_ENCRYPTED -> warmed(new GpdedupTool(commands, dir, logs, pluginOptions,
                    profile == null ? null : profile.toAbsolutePath(), agent, timeoutSeconds).encrypted());
            default -> throw new IllegalArgumentException("unknown tool " + name);
        };
    }

    private GpdedupTool warmed(GpdedupTool tool) {
        return warmUpStream == null ? tool : tool.warmingUpWith(warmUpStream);
    }

    private String header(TableShape shape, StreamSet streams, int n, Map<String, String> versions, Map<String, String> settings, String load0, String load1,
            Duration took) {
        StringBuilder s = new StringBuilder();
        StreamFile base = streams.base();
        s.append(String.format(Locale.ROOT, "## gpdedup-bench compare: %s base stream, %d round%s%n%n", ByteSize.binary(base.length()), n,
                n == 1 ? "" : "s"));
        if (copyFile != null) {
            s.append(String.format(Locale.ROOT, "- stream: the COPY-text file `%s`, %d bytes, compresses %.2fx with zstd -3; its rows changed with seed %d%n",
                    copyFile, base.length(), streams.zstdRatio(), seed));
        } else {
            s.append(String.format(Locale.ROOT, "- stream: PostgreSQL COPY text of a `%s` table (%s), seed %d, %d bytes, compresses %.2fx with zstd -3%n",
                    shape.label(), shape.columns(), seed, base.length(), streams.zstdRatio()));
        }
        for (StreamFile f : streams.files().subList(1, streams.files().size())) {
            s.append(String.format(Locale.ROOT, "- then %s: %d bytes, %s MB of rows new since the version before%n", f.label(), f.length(),
                    ByteSize.megabytes(f.leastNewBytes())));
        }
        s.append(String.format(Locale.ROOT, "- machine: %d cores, %s RAM; load average (1/5/15 min) %s at start, %s at end; wall time %d s%n",
                Runtime.getRuntime().availableProcessors(), memory(), load0, load1, took.toSeconds()));
        s.append("- figures are from a shared machine and noisy: medians over rounds, range in parentheses\n");
        versions.forEach((t, v) -> s.append("- ").append(t).append(": ").append(v.replace('\n', ' ')).append("; ").append(settings.get(t)).append('\n'));
        s.append("- every backup reads the stream file from stdin; times run from process start to exit; \"added\" is the growth of `du -sb` "
                + "of the repository (gpdedup: the store's data directory); MiB/s = stream bytes / wall time; MB = 10^6 bytes\n");
        return s.toString();
    }

    private static String memory() {
        try (Stream<String> lines = Files.lines(Path.of("/proc/meminfo"))) {
            return lines.filter(l -> l.startsWith("MemTotal:")).findFirst()
                    .map(l -> ByteSize.binary(Long.parseLong(l.replaceAll("\\D", "")) * 1024)).orElse("?");
        } catch (IOException | RuntimeException e) {
            return "?";
        }
    }

    /** The installation this class was loaded from: {@code <dist>/lib/harness.jar}. */
    static Path installation() throws IOException {
        try {
            Path jar = Path.of(CompareCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path lib = jar.getParent();
            if (jar.toString().endsWith(".jar") && lib != null && lib.getFileName().toString().equals("lib")
                    && Files.isExecutable(lib.resolveSibling("bin").resolve("gpbackup_dedup_plugin"))) {
                return lib.getParent();
            }
        } catch (URISyntaxException | RuntimeException e) {
            // Fall through to the explicit error.
        }
        throw new IOException("not running from a gpdedup installation: pass --dist DIR (e.g. the repository's dist/)");
    }

    private static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> {
                try {
                    Files.delete(p);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException | UncheckedIOException e) {
            System.err.println("could not delete " + dir + ": " + e.getMessage());
        }
    }
}
