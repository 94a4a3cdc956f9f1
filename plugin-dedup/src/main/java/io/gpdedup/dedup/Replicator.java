package io.gpdedup.dedup;

import io.gpdedup.plugin.api.BackupTimestamp;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.plugin.api.RemoteName;
import io.gpdedup.store.Fingerprint;
import io.gpdedup.store.client.BackupSession;
import io.gpdedup.store.client.StoreClient;
import io.gpdedup.store.engine.ChunkRef;
import io.gpdedup.store.engine.ObjectInfo;
import io.gpdedup.store.engine.Recipe;
import io.gpdedup.store.engine.StoredChunk;
import io.gpdedup.store.protocol.ChunkUpload;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutionException;

/**
 * Copies one backup to a second store, as the appliance plugins' replication does: for each
 * object of the backup, the remote is asked which chunks it lacks, only those are read from the
 * source and sent, as stored (compressed; the remote re-verifies them), and the recipe is
 * committed. A backup the remote already holds is refused rather than overwritten.
 */
final class Replicator {
    /** Chunks read from the source and sent to the remote per request. */
    private static final int BATCH = 256;

    record Result(int objects, long chunks, long chunksSent, long bytesSent) {
    }

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

    Result replicate(BackupTimestamp timestamp) {
        String sourcePrefix = sourceDirectory + "/" + RemoteName.backupPrefix(timestamp) + "/";
        String remotePrefix = remoteDirectory + "/" + RemoteName.backupPrefix(timestamp) + "/";
        List<ObjectInfo> objects = source.list(sourcePrefix);
        if (objects.isEmpty()) {
            throw new PluginException("no backup " + timestamp + " in directory '" + sourceDirectory + "' to replicate");
        }
        if (!remote.list(remotePrefix).isEmpty()) {
            throw new PluginException("backup " + timestamp + " already exists on the remote store (unit '" + remote.settings().unit()
                    + "', directory '" + remoteDirectory + "'): remove it with delete_replica first");
        }
        long chunks = 0;
        long sent = 0;
        long bytes = 0;
        for (ObjectInfo o : objects) {
            Recipe recipe = source.recipe(o.name()).orElseThrow(() -> new PluginException("object " + o.name() + " vanished while replicating"));
            String target = remotePrefix + o.name().substring(sourcePrefix.length());
            try (BackupSession session = remote.beginBackup()) {
                Fingerprint[] distinct = distinct(recipe);
                boolean[] missing = session.missing(distinct).get();
                List<Fingerprint> wanted = new ArrayList<>();
                for (int i = 0; i < distinct.length; i++) {
                    if (missing[i]) {
                        wanted.add(distinct[i]);
                    }
                }
                for (int from = 0; from < wanted.size(); from += BATCH) {
                    Fingerprint[] batch = wanted.subList(from, Math.min(wanted.size(), from + BATCH)).toArray(Fingerprint[]::new);
                    List<StoredChunk> stored = source.chunks(batch).get();
                    List<ChunkUpload> uploads = new ArrayList<>(batch.length);
                    for (int i = 0; i < batch.length; i++) {
                        StoredChunk c = stored.get(i);
                        uploads.add(new ChunkUpload(batch[i], c.codec(), c.rawLength(), c.payload()));
                        bytes += c.payload().length;
                    }
                    session.put(uploads).get();
                }
                session.commit(target, recipe).get();
                chunks += distinct.length;
                sent += wanted.size();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PluginException("interrupted while replicating " + o.name());
            } catch (ExecutionException e) {
                throw new PluginException("replicating " + o.name() + ": " + e.getCause().getMessage(), e.getCause());
            }
        }
        return new Result(objects.size(), chunks, sent, bytes);
    }

    /** Removes the remote copy of a backup; false when there was none. */
    boolean deleteReplica(BackupTimestamp timestamp) {
        return remote.deleteObjects(remoteDirectory + "/" + RemoteName.backupPrefix(timestamp) + "/") > 0;
    }

    private static Fingerprint[] distinct(Recipe recipe) {
        Set<Fingerprint> seen = new LinkedHashSet<>();
        for (ChunkRef c : recipe.chunks()) {
            seen.add(c.fingerprint());
        }
        return seen.toArray(Fingerprint[]::new);
    }
}
