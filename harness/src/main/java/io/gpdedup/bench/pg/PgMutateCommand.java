package io.gpdedup.bench.pg;

import io.gpdedup.pg.DatabaseMutator;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpdedup-bench pg mutate}: the changes between two backups. */
@Command(name = "mutate", mixinStandardHelpOptions = true,
        description = {"Changes a generated schema as a nightly batch does.",
            "In every non-empty table UPDATE 5%% of the rows in one clustered id range and append 2%% new rows; then TRUNCATE one small table.",
            "--scattered updates random single rows instead (the worst case for dedup: reported, not a target)."})
final class PgMutateCommand extends PgSubcommand {
    @Option(names = "--jdbc-url", required = true, paramLabel = "URL", description = "database to change")
    String jdbcUrl;

    @Option(names = "--schema", description = "the generated schema (default gen)")
    String schema = "gen";

    @Option(names = "--fraction", description = "share of each table's rows to update (default 0.05)")
    double fraction = 0.05;

    @Option(names = "--append", description = "share of each table's rows to append (default 0.02)")
    double append = 0.02;

    @Option(names = "--scattered", description = "update random single rows instead of one id range")
    boolean scattered;

    @Option(names = "--vacuum-first", description = "VACUUM each table before changing it (as autovacuum would have): "
            + "new row versions then also fill gaps all over the heap")
    boolean vacuumFirst;

    @Option(names = "--no-truncate", description = "do not truncate a table")
    boolean noTruncate;

    @Option(names = "--seed", description = "seed of ranges and rows (default 2)")
    long seed = 2;

    @Override
    int execute() throws Exception {
        DatabaseMutator.Result r = DatabaseMutator.mutate(jdbcUrl, new DatabaseMutator.Settings(schema, fraction, append, scattered, !noTruncate, vacuumFirst, seed));
        System.out.printf(Locale.ROOT, "mutate: %d tables changed, %d rows updated (%s), %d rows appended, truncated %s, in %.1f s%n",
                r.tablesChanged(), r.rowsUpdated(), r.scattered() ? "scattered single rows" : "one clustered id range per table",
                r.rowsAppended(), r.truncated() == null ? "nothing" : r.truncated(), r.seconds());
        return 0;
    }
}
