package io.gpdedup.bench.pg;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpdedup.bench.report.Charts;
import io.gpdedup.bench.report.ResultTable;
import io.gpdedup.bench.report.RunFiles;
import io.gpdedup.pg.BackupResult;
import io.gpdedup.pg.PluginLogStats;
import io.gpdedup.pg.RestoreResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code gpdedup-bench pg report}: one table from the {@code --result-json} files of backups,
 * restores and verifies (in file name order), with the comparisons that matter (single-data-file
 * against jobs, repeat against first backup), written with charts to an output directory.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = {"Prints one summary table of 'pg backup', 'pg restore' and 'pg verify' results (their --result-json files).",
            "Writes it with charts (MB/s and bytes per step) to --out; 'gpdedup-bench report DIR' makes the page."})
public final class PgReportCommand extends PgSubcommand {
    @Option(names = "--results", required = true, paramLabel = "DIR", description = "directory of --result-json files")
    Path results;

    @Option(names = "--out", paramLabel = "DIR", description = "where to write pg-summary.csv/.json and the charts")
    Path out;

    @Option(names = "--title", description = "title line of the table")
    String title = "gpdedup-bench pg: PostgreSQL through a gpbackup plugin";

    @Option(names = "--note", paramLabel = "TEXT", description = "a line to print under the table and in the report (repeatable)")
    List<String> extraNotes = new ArrayList<>();

    @Override
    int execute() throws Exception {
        if (!Files.isDirectory(results)) {
            throw new IllegalArgumentException(results + " is not a directory");
        }
        List<Path> files;
        try (Stream<Path> s = Files.list(results)) {
            files = s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
        }
        ResultTable table = new ResultTable(title, "step", "mode", "workers", "tables", "COPY MB", "new MB", "sent MB",
                "dedup ratio", "seconds", "MB/s");
        List<BackupResult> backups = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        for (Path f : files) {
            JsonNode doc = JSON.readTree(f.toFile());
            String kind = doc.path("kind").asText();
            JsonNode r = doc.get("result");
            switch (kind) {
                case "backup" -> {
                    BackupResult b = JSON.treeToValue(r, BackupResult.class);
                    backups.add(b);
                    PluginLogStats.Totals d = b.dedup();
                    table.add(b.label(), b.mode(), b.workers(), b.tables(), mb(b.bytes()), d == null ? null : mb(d.newBytes()),
                            d == null ? null : mb(d.sentBytes()), d == null ? null : ratio(d.dedupRatio()), b.seconds(), b.megabytesPerSecond());
                }
                case "restore" -> {
                    RestoreResult x = JSON.treeToValue(r, RestoreResult.class);
                    table.add(x.label(), x.mode() + (x.subset() ? " (subset)" : ""), x.workers(), x.tables(), mb(x.bytes()), null, null, null,
                            x.seconds(), x.megabytesPerSecond());
                }
                case "verify" -> {
                    PgVerifyCommand.Result v = JSON.treeToValue(r, PgVerifyCommand.Result.class);
                    notes.add(v.label() + ": " + v.tables() + " tables, " + v.rows() + " rows: "
                            + (v.problems().isEmpty() ? "row counts and checksums match" : v.problems().size() + " tables differ " + v.problems()));
                }
                default -> notes.add(f.getFileName() + ": unknown result kind '" + kind + "', skipped");
            }
        }
        notes.addAll(comparisons(backups));
        notes.addAll(extraNotes);
        table.print(System.out);
        notes.forEach(n -> System.out.println("  " + n));
        if (out != null) {
            RunFiles run = RunFiles.in(out);
            run.table("pg-summary", table);
            run.info(title, "gpdedup-bench pg report --results " + results, notes);
            List<String> steps = backups.stream().map(BackupResult::label).toList();
            if (!steps.isEmpty()) {
                Charts.bars(run.file("pg-summary-throughput.png"), "Backup throughput (COPY output / wall time)", "backup", "MB/s", steps,
                        Map.of("MB/s", backups.stream().mapToDouble(BackupResult::megabytesPerSecond).toArray()));
                Map<String, double[]> bytes = new LinkedHashMap<>();
                bytes.put("COPY output", backups.stream().mapToDouble(b -> b.bytes() / 1e6).toArray());
                if (backups.stream().allMatch(b -> b.dedup() != null)) {
                    bytes.put("new to the store", backups.stream().mapToDouble(b -> b.dedup().newBytes() / 1e6).toArray());
                    bytes.put("sent (compressed)", backups.stream().mapToDouble(b -> b.dedup().sentBytes() / 1e6).toArray());
                }
                Charts.bars(run.file("pg-summary-bytes.png"), "Bytes per backup", "backup", "MB", steps, bytes);
            }
            System.out.println("  report files: " + out);
        }
        return 0;
    }

    /** Single-data-file against jobs (k-th of each mode), and every later backup against the first. */
    static List<String> comparisons(List<BackupResult> backups) {
        List<String> notes = new ArrayList<>();
        List<BackupResult> jobs = backups.stream().filter(b -> b.mode().equals("jobs")).toList();
        List<BackupResult> sdf = backups.stream().filter(b -> b.mode().equals("single-data-file")).toList();
        for (int i = 0; i < Math.min(jobs.size(), sdf.size()); i++) {
            BackupResult j = jobs.get(i);
            BackupResult s = sdf.get(i);
            notes.add(String.format(Locale.ROOT, "single-data-file vs jobs (%s vs %s): %.1f vs %.1f MB/s, %.1fx; %d vs %d plugin calls",
                    s.label(), j.label(), s.megabytesPerSecond(), j.megabytesPerSecond(),
                    j.megabytesPerSecond() == 0 ? 0 : s.megabytesPerSecond() / j.megabytesPerSecond(),
                    s.dedup() == null ? 1 : s.dedup().calls(), j.dedup() == null ? j.tables() : j.dedup().calls()));
        }
        // The first backup filled the store; every later one sends only what the store lacks.
        BackupResult first = backups.isEmpty() ? null : backups.get(0);
        if (first != null && first.dedup() != null && first.dedup().sentBytes() > 0) {
            for (BackupResult later : backups.subList(1, backups.size())) {
                if (later.dedup() != null) {
                    notes.add(String.format(Locale.ROOT, "%s sent %.1f%% of the bytes the first backup (%s) sent: %s of %s",
                            later.label(), 100.0 * later.dedup().sentBytes() / first.dedup().sentBytes(), first.label(),
                            megabytes(later.dedup().sentBytes()), megabytes(first.dedup().sentBytes())));
                }
            }
        }
        return notes;
    }

    private static double mb(long bytes) {
        return bytes / 1e6;
    }

    private static Double ratio(double r) {
        return Double.isInfinite(r) ? null : r;
    }
}
