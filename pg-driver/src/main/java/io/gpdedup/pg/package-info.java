/**
 * A real PostgreSQL database driven through the gpbackup plugins, the way gpbackup drives them.
 *
 * <p>{@link io.gpdedup.pg.SnapshotBackup} copies tables out with PgJDBC into the plugin
 * executable's {@code backup_data} (one call per table, or one single-data-file stream with a TOC
 * of offsets), with gpbackup's consistency scheme: worker 0 exports a snapshot and holds ACCESS
 * SHARE locks on every table, the other workers import the snapshot and take each lock NOWAIT,
 * handing a table to worker 0 when a queued exclusive lock stands in the way.
 * {@link io.gpdedup.pg.BackupRestore} recreates the schema and copies the data back;
 * {@link io.gpdedup.pg.DatabaseDigest} compares two databases table by table.
 * {@link io.gpdedup.pg.DatabaseGenerator} and {@link io.gpdedup.pg.DatabaseMutator}
 * make the published table mix and the changes between two backups, and
 * {@link io.gpdedup.pg.PgServer} runs an embedded server (also as root, under an
 * unprivileged account).
 * The end-to-end tests and {@code gpdedup-bench pg} both drive it.
 */
package io.gpdedup.pg;
