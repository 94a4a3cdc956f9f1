/**
 * A real PostgreSQL database driven through the gpbackup plugins, the way gpbackup drives them.
 *
 * <p>{@link io.gpdedup.bench.pg.SnapshotBackup} copies tables out with PgJDBC into the plugin
 * executable's {@code backup_data} (one call per table, or one single-data-file stream with a TOC
 * of offsets), with gpbackup's consistency scheme: worker 0 exports a snapshot and holds ACCESS
 * SHARE locks on every table, the other workers import the snapshot and take each lock NOWAIT,
 * handing a table to worker 0 when a queued exclusive lock stands in the way.
 * {@link io.gpdedup.bench.pg.BackupRestore} recreates the schema and copies the data back;
 * {@link io.gpdedup.bench.pg.DatabaseDigest} compares two databases table by table.
 * {@link io.gpdedup.bench.pg.DatabaseGenerator} and {@link io.gpdedup.bench.pg.DatabaseMutator}
 * make the published table mix and the changes between two backups, and
 * {@link io.gpdedup.bench.pg.PgServer} runs an embedded server (also as root, under an
 * unprivileged account). {@link io.gpdedup.bench.pg.PgCommand} is {@code gpdedup-bench pg}.
 */
package io.gpdedup.bench.pg;
