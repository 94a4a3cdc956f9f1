package io.gpdedup.bench.compare;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiFunction;

/**
 * Runs the rounds: each round gives every tool a fresh repository and walks the steps, all tools
 * doing a step before any does the next, in an order that rotates from round to round, so that a
 * burst of load from other users of the machine spreads over the tools instead of hitting one.
 */
final class Comparison {
    private final StreamSet streams;
    private final List<String> tools;
    private final BiFunction<String, Path, BackupTool> factory;
    private final List<Step> steps;
    private final PrintStream progress;

    /**
     * @param factory makes the named tool with its repository under the given directory
     * @param steps the steps to run, in {@link Step} order
     */
    Comparison(StreamSet streams, List<String> tools, BiFunction<String, Path, BackupTool> factory, List<Step> steps, PrintStream progress) {
        this.streams = streams;
        this.tools = List.copyOf(tools);
        this.factory = factory;
        this.steps = List.copyOf(steps);
        this.progress = progress;
    }

    /** Runs round {@code round} (0-based) with repositories under {@code dir}. */
    List<Observation> round(int round, Path dir) throws IOException {
        List<BackupTool> order = new ArrayList<>();
        for (int i = 0; i < tools.size(); i++) {
            String name = tools.get((i + round) % tools.size());
            order.add(factory.apply(name, dir.resolve(name)));
        }
        List<Observation> out = new ArrayList<>();
        try {
            long[] repo = new long[order.size()];
            long[] physical = new long[order.size()];
            for (int t = 0; t < order.size(); t++) {
                order.get(t).open();
                repo[t] = order.get(t).repositoryBytes();
                physical[t] = physical(order.get(t));
            }
            StreamFile lastStream = null;
            String lastSnapshot = null;
            for (Step step : steps) {
                StreamFile stream = step.isBackup() ? streams.files().get(step.stream()) : lastStream;
                if (stream == null) {
                    throw new IllegalArgumentException("a restore step needs a backup step before it");
                }
                for (int t = 0; t < order.size(); t++) {
                    BackupTool tool = order.get(t);
                    Observation o;
                    try {
                        if (step.isBackup()) {
                            StepResult r = tool.backup(stream, step.snapshot());
                            long written = tool.repositoryBytes();
                            BackupTool.Quiet quiet = tool.awaitQuiet();
                            long after = quiet == null ? written : tool.repositoryBytes();
                            long physicalAfter = physical(tool);
                            Observation.Settled settled = quiet == null ? null
                                    : new Observation.Settled(after - repo[t], quiet.cpuNanos(), quiet.wallNanos());
                            o = new Observation(round, tool.name(), step, stream.length(), r, written - repo[t],
                                    physicalAfter < 0 ? -1 : physicalAfter - physical[t], settled, null);
                            repo[t] = after;
                            physical[t] = physicalAfter;
                        } else {
                            StepResult r = tool.restore(lastSnapshot);
                            check(tool, r.run(), stream);
                            o = new Observation(round, tool.name(), step, stream.length(), r, 0, -1, null, null);
                        }
                    } catch (IOException | RuntimeException e) {
                        // A failed step is a finding, not the end of the run: record it and go on.
                        o = Observation.failed(round, tool.name(), step, stream.length(), String.valueOf(e.getMessage()));
                        repo[t] = sizeOrLast(tool, repo[t]);
                    }
                    out.add(o);
                    progress.println(describe(o));
                }
                if (step.isBackup()) {
                    lastStream = stream;
                    lastSnapshot = step.snapshot();
                }
            }
        } finally {
            IOException failed = null;
            for (BackupTool t : order) {
                try {
                    t.close();
                } catch (IOException e) {
                    failed = e;
                }
            }
            if (failed != null) {
                throw failed;
            }
        }
        return out;
    }

    private static long sizeOrLast(BackupTool tool, long last) {
        try {
            return tool.repositoryBytes();
        } catch (IOException | RuntimeException e) {
            return last;
        }
    }

    private static long physical(BackupTool tool) throws IOException {
        return tool instanceof GpdedupTool g ? g.physicalBytes() : -1;
    }

    private static void check(BackupTool tool, Measured run, StreamFile expected) throws IOException {
        if (run.outBytes() != expected.length() || !expected.sha256().equals(run.outSha256())) {
            throw new IOException(tool.name() + " restored " + run.outBytes() + " bytes with SHA-256 " + run.outSha256() + ", expected "
                    + expected.length() + " bytes with SHA-256 " + expected.sha256() + "; see " + run.log());
        }
    }

    private static String describe(Observation o) {
        if (o.failed()) {
            return String.format(Locale.ROOT, "  round %d  %-8s %-32s FAILED: %s", o.round() + 1, o.tool(), o.step().label(), o.failure());
        }
        StepResult r = o.result();
        StringBuilder s = new StringBuilder(String.format(Locale.ROOT, "  round %d  %-8s %-32s %7.2f s %8.1f MiB/s", o.round() + 1,
                o.tool(), o.step().label(), r.run().wallNanos() / 1e9, o.mibPerSecond()));
        if (o.step().isBackup()) {
            s.append(String.format(Locale.ROOT, "  +%s MB on disk", ByteSize.megabytes(o.repoGrowth())));
        } else {
            s.append("  SHA-256 ok");
        }
        if (r.wireBytesUp() >= 0) {
            s.append(String.format(Locale.ROOT, ", %s MB sent", ByteSize.megabytes(r.wireBytesUp())));
        }
        return s.toString();
    }
}
