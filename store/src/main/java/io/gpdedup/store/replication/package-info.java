/**
 * Copying backups to a second store: the chunk-level copy itself ({@link io.gpdedup.store.replication.BackupCopier},
 * shared with the dedup plugin's {@code replicate_backup}), and the store's own queue of background copies that
 * survives restarts and retries until the remote has them ({@link io.gpdedup.store.replication.ReplicationQueue}).
 */
package io.gpdedup.store.replication;
