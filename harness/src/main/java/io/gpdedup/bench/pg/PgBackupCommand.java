package io.gpdedup.bench.pg;

import io.gpdedup.pg.BackupListener;
import io.gpdedup.pg.BackupResult;
import io.gpdedup.pg.PluginLogStats;
import io.gpdedup.pg.PluginRunner;
import io.gpdedup.pg.SchemaSource;
import io.gpdedup.pg.SnapshotBackup;
import io.gpdedup.pg.TableRef;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code gpdedup-bench pg backup}: a gpbackup-like backup of a PostgreSQL database through a plugin. */
@Command(name = "backup", mixinStandardHelpOptions = true,
        description = {"Backs up a PostgreSQL database through a gpbackup storage plugin, as gpbackup does.",
            "An exported snapshot shared by all workers, ACCESS SHARE locks, LOCK ... NOWAIT with fallback to worker 0, "
                + "COPY ... TO STDOUT (CSV) into the plugin's backup_data (one call per table, or one stream with --single-data-file).",
            "Prints the timestamp to give 'pg restore'."})
final class PgBackupCommand extends PgSubcommand {
    @Option(names = "--jdbc-url", required = true, paramLabel = "URL", description = "database to back up, e.g. jdbc:postgresql://127.0.0.1:5432/sales?user=postgres")
    String jdbcUrl;

    @Option(names = "--plugin-config", required = true, paramLabel = "FILE", description = "plugin config YAML (executablepath, options)")
    Path pluginConfig;

    @Option(names = "--jobs", paramLabel = "N", description = "copy workers besides worker 0, one backup_data per table (default 1)")
    int jobs = 1;

    @Option(names = "--single-data-file", description = "one backup_data stream with all tables and a TOC of offsets")
    boolean singleDataFile;

    @Option(names = "--copy-queue-size", paramLabel = "Q", description = "with --single-data-file: Q workers copy ahead of the stream (default 1)")
    Integer copyQueueSize;

    @Option(names = "--local-dir", paramLabel = "DIR", description = "where the metadata files are written before backup_file (stands for the data directory; default ${java.io.tmpdir}/gpdedup-pg-backups)")
    Path localDir = defaultLocalDir();

    @Option(names = "--schema-from", paramLabel = "SOURCE", converter = SchemaSourceConverter.class, description = "DDL from: catalog (default), pg_dump (pg_dump --schema-only "
            + "on the backup's snapshot; must be as new as the server), auto (pg_dump if it works, else the catalogs)")
    SchemaSource schemaFrom = SchemaSource.CATALOG;

    @Option(names = "--label", description = "name of this backup in results and reports")
    String label;

    @Option(names = "--result-json", paramLabel = "FILE", description = "also write the result as JSON (for 'pg report')")
    Path resultJson;

    @Mixin
    Filter filter = new Filter();

    @Override
    int execute() throws Exception {
        if (copyQueueSize != null && !singleDataFile) {
            throw new IllegalArgumentException("--copy-queue-size needs --single-data-file");
        }
        if (singleDataFile && spec.commandLine().getParseResult().hasMatchedOption("--jobs")) {
            throw new IllegalArgumentException("--jobs and --single-data-file cannot be used together (use --copy-queue-size)");
        }
        if (jobs < 1 || (copyQueueSize != null && copyQueueSize < 1)) {
            throw new IllegalArgumentException("--jobs and --copy-queue-size must be at least 1");
        }
        int workers = singleDataFile ? (copyQueueSize == null ? 1 : copyQueueSize) : jobs;
        PluginRunner plugin = PluginRunner.load(pluginConfig);
        SnapshotBackup backup = new SnapshotBackup(new SnapshotBackup.Options(jdbcUrl, plugin, localDir, singleDataFile, workers,
                filter.toFilter(), label == null ? (singleDataFile ? "single-data-file" : "jobs") : label, schemaFrom));
        // A progress bar only for a person watching: scripts and logs get the result lines alone.
        boolean interactive = System.console() != null;
        io.gpdedup.bench.report.Progress[] progress = {io.gpdedup.bench.report.Progress.quiet()};
        backup.listener(new BackupListener() {
            @Override
            public void locksHeld(List<TableRef> tables) {
                if (interactive) {
                    progress[0] = io.gpdedup.bench.report.Progress.start("pg backup (tables)", tables.size());
                }
            }

            @Override
            public void copied(TableRef table, int worker, long rows, long bytes) {
                progress[0].step(1);
            }

            @Override
            public void schemaFallback(String reason) {
                System.err.println("pg_dump did not work, schema from the catalogs: " + reason);
            }

            @Override
            public void deferred(TableRef table, int worker) {
                System.err.println("worker " + worker + " could not lock " + table + " NOWAIT: handed to worker 0");
            }
        });
        BackupResult r;
        try {
            r = backup.run();
        } finally {
            progress[0].close();
        }
        print(r);
        writeResult(resultJson, "backup", r);
        return 0;
    }

    /** catalog, pg_dump, pg-dump or auto, in any case. */
    static final class SchemaSourceConverter implements picocli.CommandLine.ITypeConverter<SchemaSource> {
        @Override
        public SchemaSource convert(String value) {
            try {
                return SchemaSource.valueOf(value.toUpperCase(Locale.ROOT).replace('-', '_'));
            } catch (IllegalArgumentException e) {
                throw new picocli.CommandLine.TypeConversionException("expected catalog, pg_dump or auto, got '" + value + "'");
            }
        }
    }

    static void print(BackupResult r) {
        System.out.printf(Locale.ROOT, "backup %s (%s, %d copy worker%s): %d tables (%d empty), %d rows, %s of COPY output in %.1f s = %.1f MB/s%n",
                r.timestamp(), r.mode(), r.workers(), r.workers() == 1 ? "" : "s", r.tables(), r.emptyTables(), r.rows(),
                megabytes(r.bytes()), r.seconds(), r.megabytesPerSecond());
        List<String> deferred = r.deferredTables();
        if (!deferred.isEmpty()) {
            System.out.println("  handed to worker 0 (lock not available NOWAIT): " + String.join(", ", deferred));
        }
        if (r.dedup() != null) {
            PluginLogStats.Totals d = r.dedup();
            System.out.printf(Locale.ROOT, "  dedup plugin: %d calls, %d chunks, %d new (%s), %s sent, dedup ratio %.1fx%n",
                    d.calls(), d.chunks(), d.newChunks(), megabytes(d.newBytes()), megabytes(d.sentBytes()), d.dedupRatio());
        }
    }
}
