/**
 * Copying backups to a second store: the chunk-level copy itself ({@link io.gpdedup.client.BackupCopier},
 * shared with the dedup plugin's {@code replicate_backup}), and the store's own queue of background copies that
 * survives restarts and retries until the remote has them ({@link io.gpdedup.store.replication.ReplicationQueue}).
 */
package io.gpdedup.store.replication;

import io.gpdedup.client.BackupCopier;
