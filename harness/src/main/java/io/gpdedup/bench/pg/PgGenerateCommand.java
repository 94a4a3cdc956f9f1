package io.gpdedup.bench.pg;

import io.gpdedup.pg.DatabaseGenerator;
import io.gpdedup.pg.GenerationPlan;
import io.gpdedup.pg.Jdbc;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code gpdedup-bench pg generate}: a database with the published table mix. */
@Command(name = "generate", mixinStandardHelpOptions = true,
        description = {"Creates tables with the published mix in one schema: ~5%% large tables (~77%% of the bytes), 28%% empty, the rest small.",
            "Orders-like rows (ids, timestamps, amounts, statuses, free text) loaded with COPY."})
final class PgGenerateCommand extends PgSubcommand {
    @Option(names = "--jdbc-url", required = true, paramLabel = "URL", description = "database to fill")
    String jdbcUrl;

    @Option(names = "--scale", paramLabel = "MB", description = "total size in MB of COPY text (default 64)")
    double scaleMb = 64;

    @Option(names = "--tables", paramLabel = "N", description = "number of tables (default 40)")
    int tables = 40;

    @Option(names = "--schema", description = "schema to create (default gen)")
    String schema = "gen";

    @Option(names = "--seed", description = "seed of sizes and rows (default 1)")
    long seed = 1;

    @Option(names = "--jobs", paramLabel = "N", description = "parallel loading connections (default 2)")
    int jobs = 2;

    @Option(names = "--replace", description = "drop the schema first if it exists")
    boolean replace;

    @Option(names = "--create-db", description = "create the database named in --jdbc-url first")
    boolean createDb;

    @Override
    int execute() throws Exception {
        GenerationPlan plan = GenerationPlan.of(tables, Math.round(scaleMb * 1e6), seed);
        if (createDb) {
            Jdbc.createDatabase(jdbcUrl, Jdbc.database(jdbcUrl));
        }
        DatabaseGenerator.Result r = DatabaseGenerator.generate(jdbcUrl, schema, plan, jobs, replace);
        System.out.printf(Locale.ROOT, "generate: schema %s, %d tables (%d empty), %d rows, %s of COPY text in %.1f s%n",
                r.schema(), r.tables(), r.emptyTables(), r.rows(), megabytes(r.copyBytes()), r.seconds());
        return 0;
    }
}
