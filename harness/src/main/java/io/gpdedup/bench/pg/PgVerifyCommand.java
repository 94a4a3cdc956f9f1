package io.gpdedup.bench.pg;

import io.gpdedup.pg.DatabaseDigest;
import io.gpdedup.pg.Jdbc;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpdedup-bench pg verify}: row counts and checksums of a restored database against its source. */
@Command(name = "verify", mixinStandardHelpOptions = true,
        description = {"Compares two databases table by table: row count and an order-independent checksum of the rows.",
            "Exit status 1 when any table differs."})
final class PgVerifyCommand extends PgSubcommand {
    /** What verify found, for reports. */
    public record Result(String label, int tables, long rows, List<String> problems) {
    }

    @Option(names = "--source", required = true, paramLabel = "URL", description = "the database that was backed up")
    String source;

    @Option(names = "--target", required = true, paramLabel = "URL", description = "the restored database")
    String target;

    @Option(names = "--label", description = "name of this check in results and reports")
    String label;

    @Option(names = "--result-json", paramLabel = "FILE", description = "also write the result as JSON (for 'pg report')")
    Path resultJson;

    @Mixin
    Filter filter = new Filter();

    @Override
    int execute() throws Exception {
        Map<String, DatabaseDigest.TableDigest> expected;
        Map<String, DatabaseDigest.TableDigest> actual;
        try (Connection s = Jdbc.open(source); Connection t = Jdbc.open(target)) {
            expected = DatabaseDigest.of(s, filter.toFilter());
            actual = DatabaseDigest.of(t, filter.toFilter());
        }
        List<String> problems = DatabaseDigest.compare(expected, actual);
        long rows = expected.values().stream().mapToLong(DatabaseDigest.TableDigest::rows).sum();
        Result r = new Result(label == null ? "verify" : label, expected.size(), rows, problems);
        writeResult(resultJson, "verify", r);
        if (problems.isEmpty()) {
            System.out.println("verify: " + expected.size() + " tables, " + rows + " rows: row counts and checksums match");
            return 0;
        }
        System.out.println("verify: " + problems.size() + " of " + expected.size() + " tables differ:");
        problems.forEach(p -> System.out.println("  " + p));
        return 1;
    }
}
