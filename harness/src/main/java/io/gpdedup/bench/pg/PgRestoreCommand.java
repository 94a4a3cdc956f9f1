package io.gpdedup.bench.pg;

import io.gpdedup.pg.BackupRestore;
import io.gpdedup.pg.Jdbc;
import io.gpdedup.pg.PluginRunner;
import io.gpdedup.pg.RestoreResult;
import java.nio.file.Path;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpdedup-bench pg restore}: a gprestore-like restore of a {@code pg backup}. */
@Command(name = "restore", mixinStandardHelpOptions = true,
        description = {"Restores a 'pg backup' through the same plugin: schema first, then COPY ... FROM STDIN, then keys and indexes.",
            "N connections for jobs backups; one stream, or restore_data_subset with a table filter, for single-data-file backups."})
final class PgRestoreCommand extends PgSubcommand {
    @Option(names = "--jdbc-url", required = true, paramLabel = "URL", description = "database to restore into (its tables must not exist yet)")
    String jdbcUrl;

    @Option(names = "--plugin-config", required = true, paramLabel = "FILE", description = "plugin config YAML")
    Path pluginConfig;

    @Option(names = "--timestamp", required = true, paramLabel = "T", description = "the backup's 14-digit timestamp")
    String timestamp;

    @Option(names = "--jobs", paramLabel = "N", description = "parallel COPY connections for jobs backups (default 1)")
    int jobs = 1;

    @Option(names = "--create-db", description = "create the database named in --jdbc-url first")
    boolean createDb;

    @Option(names = "--no-subset", description = "with a table filter on a single-data-file backup: read the whole stream instead of restore_data_subset")
    boolean noSubset;

    @Option(names = "--local-dir", paramLabel = "DIR", description = "where restore_file puts the metadata files (default ${java.io.tmpdir}/gpdedup-pg-backups)")
    Path localDir = defaultLocalDir();

    @Option(names = "--label", description = "name of this restore in results and reports")
    String label;

    @Option(names = "--result-json", paramLabel = "FILE", description = "also write the result as JSON (for 'pg report')")
    Path resultJson;

    @Mixin
    Filter filter = new Filter();

    @Override
    int execute() throws Exception {
        PluginRunner plugin = PluginRunner.load(pluginConfig);
        if (createDb) {
            Jdbc.createDatabase(jdbcUrl, Jdbc.database(jdbcUrl));
        }
        RestoreResult r = new BackupRestore(new BackupRestore.Options(jdbcUrl, plugin, localDir, timestamp, jobs, filter.toFilter(), !noSubset,
                label == null ? "restore" : label)).run();
        System.out.printf(Locale.ROOT, "restore %s (%s, %d connection%s%s): %d tables, %d rows, %s in %.1f s = %.1f MB/s%n",
                r.timestamp(), r.mode(), r.workers(), r.workers() == 1 ? "" : "s", r.subset() ? ", restore_data_subset" : "",
                r.tables(), r.rows(), megabytes(r.bytes()), r.seconds(), r.megabytesPerSecond());
        writeResult(resultJson, "restore", r);
        return 0;
    }
}
