package io.gpdedup.bench.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code gpdedup-bench report DIR}: one Markdown page, DIR/report.md, from a run directory: the
 * run's title and command line (run.json), then per CSV file its table (title from the JSON file
 * of the same name) followed by the charts whose names start with the same name, then any other
 * chart. Long tables (per-second timelines) are cut to their first rows with a note.
 */
@Command(name = "report", mixinStandardHelpOptions = true,
        description = "Write DIR/report.md: the tables (CSV) and charts (PNG) of a run directory on one page.")
public final class ReportCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "DIR", description = "A run directory written with --out.")
    Path dir;

    @Option(names = "--max-rows", defaultValue = "60", description = "Rows shown per table (default ${DEFAULT-VALUE}).")
    int maxRows;

    @Override
    public Integer call() throws IOException {
        if (!Files.isDirectory(dir)) {
            System.err.println("report: " + dir + " is not a directory");
            return 2;
        }
        Path out = dir.resolve("report.md");
        Files.writeString(out, render(dir, maxRows), StandardCharsets.UTF_8);
        System.out.println(out);
        return 0;
    }

    /** The page for {@code dir}. */
    static String render(Path dir, int maxRows) throws IOException {
        ObjectMapper json = new ObjectMapper();
        StringBuilder md = new StringBuilder();
        JsonNode info = readJson(json, dir.resolve("run.json"));
        md.append("# ").append(info != null && info.hasNonNull("title") ? info.get("title").asText() : "gpdedup-bench run " + dir.getFileName()).append("\n\n");
        if (info != null && info.hasNonNull("command")) {
            md.append("```\n").append(info.get("command").asText()).append("\n```\n\n");
        }
        if (info != null && info.has("notes")) {
            for (JsonNode n : info.get("notes")) {
                md.append("- ").append(n.asText()).append('\n');
            }
            md.append('\n');
        }
        List<Path> csvs = list(dir, ".csv");
        List<Path> pngs = new ArrayList<>(list(dir, ".png"));
        if (csvs.isEmpty() && pngs.isEmpty()) {
            md.append("_No CSV or PNG files in this directory._\n");
        }
        for (Path csv : csvs) {
            String base = stem(csv);
            JsonNode meta = readJson(json, dir.resolve(base + ".json"));
            String title = meta != null && meta.hasNonNull("title") ? meta.get("title").asText() : base;
            md.append("## ").append(title).append("\n\n");
            md.append(table(RunFiles.readCsv(csv), maxRows, csv.getFileName().toString()));
            for (var it = pngs.iterator(); it.hasNext();) {
                Path png = it.next();
                if (stem(png).startsWith(base)) {
                    md.append(image(png));
                    it.remove();
                }
            }
        }
        if (!pngs.isEmpty()) {
            md.append("## Charts\n\n");
            for (Path png : pngs) {
                md.append(image(png));
            }
        }
        return md.toString();
    }

    private static String table(List<List<String>> rows, int maxRows, String file) {
        if (rows.isEmpty()) {
            return "_" + file + " is empty._\n\n";
        }
        StringBuilder sb = new StringBuilder();
        List<String> header = rows.get(0);
        sb.append("| ").append(String.join(" | ", header)).append(" |\n|").append("---|".repeat(header.size())).append('\n');
        int shown = Math.min(rows.size() - 1, maxRows);
        for (int r = 1; r <= shown; r++) {
            List<String> row = rows.get(r);
            sb.append("| ");
            for (int c = 0; c < header.size(); c++) {
                sb.append(c == 0 ? "" : " | ").append(c < row.size() ? number(row.get(c)).replace("|", "\\|") : "");
            }
            sb.append(" |\n");
        }
        if (rows.size() - 1 > shown) {
            sb.append("\n_").append(rows.size() - 1 - shown).append(" more rows in ").append(file).append("._\n");
        }
        return sb.append('\n').toString();
    }

    /** Long decimals from CSV shown with one decimal, like the printed tables. */
    private static String number(String s) {
        if (s.matches("-?\\d+\\.\\d{2,}")) {
            return ResultTable.cell(Double.parseDouble(s));
        }
        return s;
    }

    private static String image(Path png) {
        return "![" + stem(png) + "](" + png.getFileName() + ")\n\n";
    }

    private static JsonNode readJson(ObjectMapper json, Path file) {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        try {
            JsonNode n = json.readTree(file.toFile());
            return n != null && n.isObject() ? n : null;
        } catch (IOException e) {
            return null;
        }
    }

    private static List<Path> list(Path dir, String suffix) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(suffix) && Files.isRegularFile(p)).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + dir, e);
        }
    }

    private static String stem(Path p) {
        String n = p.getFileName().toString();
        int dot = n.lastIndexOf('.');
        return dot < 0 ? n : n.substring(0, dot);
    }
}
