package io.gpdedup.dedup;

import io.gpdedup.client.BackupCopier;
import io.gpdedup.client.ReplicationException;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.RemoteName;

/**
 * replicate_backup and delete_replica between the plugin's store and the remote one, from the
 * plugin itself: the copy is {@link BackupCopier}'s, and a backup the remote already holds is
 * refused rather than overwritten, as the appliance plugins refuse it.
 */
final class Replicator {
    private final StoreClient source;
    private final String sourceDirectory;
    private final StoreClient remote;
    private final String remoteDirectory;

    Replicator(StoreClient source, String sourceDirectory, StoreClient remote, String remoteDirectory) {
        this.source = source;
        this.sourceDirectory = sourceDirectory;
        this.remote = remote;
        this.remoteDirectory = remoteDirectory;
    }

    /** {@code <directory>/backups/<date>/<timestamp>/}: every object of one backup. */
    static String backupPrefix(String directory, BackupTimestamp timestamp) {
        return directory + "/" + RemoteName.backupPrefix(timestamp) + "/";
    }

    BackupCopier.Result replicate(BackupTimestamp timestamp) {
        String sourcePrefix = backupPrefix(sourceDirectory, timestamp);
        String remotePrefix = backupPrefix(remoteDirectory, timestamp);
        if (source.list(sourcePrefix).isEmpty()) {
            throw new PluginException("no backup " + timestamp + " in directory '" + sourceDirectory + "' to replicate");
        }
        if (!remote.list(remotePrefix).isEmpty()) {
            throw new PluginException("backup " + timestamp + " already exists on the remote store (unit '" + remote.settings().unit()
                    + "', directory '" + remoteDirectory + "'): remove it with delete_replica first");
        }
        try {
            return new BackupCopier(BackupCopier.source(source), remote).copy(sourcePrefix, remotePrefix, (chunks, bytes) -> { });
        } catch (ReplicationException | StoreClientException e) {
            throw new PluginException("replicating backup " + timestamp + ": " + e.getMessage(), e);
        }
    }

    /** Removes the remote copy of a backup; false when there was none. */
    boolean deleteReplica(BackupTimestamp timestamp) {
        return remote.deleteObjects(backupPrefix(remoteDirectory, timestamp)) > 0;
    }
}
