package io.gpdedup.dedup;

import io.gpdedup.dedup.pipeline.BackupPipeline;
import io.gpdedup.dedup.pipeline.MemoryBudget;
import io.gpdedup.dedup.pipeline.PipelineSettings;
import io.gpdedup.dedup.pipeline.RestorePipeline;
import io.gpdedup.plugin.api.BackupTimestamp;
import io.gpdedup.plugin.api.ByteRanges;
import io.gpdedup.plugin.api.CommitGate;
import io.gpdedup.plugin.api.Hook;
import io.gpdedup.plugin.api.HookScope;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.plugin.api.PluginLog;
import io.gpdedup.plugin.api.RemoteDirectory;
import io.gpdedup.plugin.api.RemoteName;
import io.gpdedup.plugin.api.StorageBackend;
import io.gpdedup.plugin.api.StoredData;
import io.gpdedup.store.client.BackupSession;
import io.gpdedup.store.client.StoreClient;
import io.gpdedup.store.client.StoreClientException;
import io.gpdedup.store.engine.ObjectInfo;
import io.gpdedup.store.engine.Recipe;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

/**
 * The plugin commands on a storage unit: object {@code <directory>/backups/<date>/<timestamp>/<file>}
 * per gpbackup key. One borrowed connection per call, handed back on close.
 */
final class DedupBackend implements StorageBackend {
    private final DedupOptions options;
    private final StoreConnections connections;
    private final ChunkingFreeze freeze;
    private final ReplicationCommands replication;
    private final PipelineSettings pipeline;
    private final PluginLog log;
    private StoreClient client;

    DedupBackend(DedupOptions options, StoreConnections connections, ChunkingFreeze freeze, ReplicationCommands replication,
            PipelineSettings pipeline, PluginLog log) {
        this.options = options;
        this.connections = connections;
        this.freeze = freeze;
        this.replication = replication;
        this.pipeline = pipeline;
        this.log = log;
    }

    private StoreClient client() {
        if (client == null) {
            client = connections.borrow(options.store());
        }
        return client;
    }

    private String objectName(RemoteName name) {
        return options.directory() + "/" + name.path();
    }

    @Override
    public void hook(Hook hook) {
        // Fail setup early (gpbackup aborts on a failed setup hook) when the store is unreachable
        // or the chunk sizes clash with the unit's.
        if (hook.isSetup()) {
            client().ping();
            if (hook.isBackup()) {
                freeze.check(client(), options.chunking());
            }
        } else if (hook.isBackup() && options.replication() && hook.scope() == HookScope.COORDINATOR) {
            // gpbackup runs the coordinator's cleanup once, after every file of the backup is
            // stored (its config and report included): the moment to copy the whole backup.
            BackupTimestamp ts = timestampOf(hook.localBackupDirectory());
            Replicator.Result r = replication.replicate(options, ts);
            log.info("replicated backup " + ts + ": " + r.objects() + " objects, " + r.chunksSent() + " of " + r.chunks()
                    + " chunks sent (" + r.bytesSent() + " bytes)");
        }
    }

    /** gpbackup's backup directory ends in {@code backups/<YYYYMMDD>/<timestamp>}. */
    private static BackupTimestamp timestampOf(java.nio.file.Path backupDirectory) {
        java.nio.file.Path last = backupDirectory.getFileName();
        if (last == null) {
            throw new PluginException("cannot tell the backup timestamp from directory " + backupDirectory);
        }
        return BackupTimestamp.parse(last.toString());
    }

    @Override
    public void backupData(RemoteName name, InputStream in) throws IOException {
        // Admitted before anything else is taken (a connection, buffers): calls beyond the budget queue here.
        try (MemoryBudget.Stream stream = pipeline.admitBackup()) {
            backupData(name, in, stream);
        }
    }

    private void backupData(RemoteName name, InputStream in, MemoryBudget.Stream stream) throws IOException {
        StoreClient c = client();
        freeze.check(c, options.chunking());
        String object = objectName(name);
        try (BackupSession session = c.beginBackup()) {
            BackupPipeline.Result r = new BackupPipeline(pipeline).store(in, session, stream);
            CommitGate.commit(() -> await(session.commit(object, r.recipe())), () -> c.deleteObject(object));
            log.info("backup_data " + object + ": " + r.recipe().totalLength() + " bytes in " + r.chunks() + " chunks, "
                    + r.newChunks() + " new (" + r.newBytes() + " bytes, " + r.sentBytes() + " sent)");
        } catch (StoreClientException e) {
            throw new PluginException("gpdedup-store: " + e.getMessage(), e);
        }
    }

    @Override
    public StoredData openData(RemoteName name) throws IOException {
        String object = objectName(name);
        MemoryBudget.Stream stream = pipeline.admitRestore();
        Recipe recipe;
        try {
            recipe = client().recipe(object).orElseThrow(() -> new PluginException("no backup object " + name
                    + " in storage unit '" + options.store().unit() + "' directory '" + options.directory() + "'"));
        } catch (RuntimeException e) {
            stream.close();
            throw e;
        }
        RestorePipeline restore = new RestorePipeline(pipeline, client());
        return new StoredData() {
            @Override
            public long length() {
                return recipe.totalLength();
            }

            @Override
            public void writeTo(OutputStream out) throws IOException {
                restore.writeAll(recipe, out, stream);
            }

            @Override
            public void writeRanges(ByteRanges ranges, OutputStream out) throws IOException {
                restore.writeRanges(recipe, ranges, out, stream);
            }

            @Override
            public void close() {
                stream.close();
            }
        };
    }

    @Override
    public void deleteBackup(BackupTimestamp timestamp) {
        long n = client().deleteObjects(options.directory() + "/" + RemoteName.backupPrefix(timestamp) + "/");
        log.info("delete_backup " + timestamp + ": " + n + " objects");
    }

    @Override
    public void listDirectory(Optional<RemoteDirectory> directory, PrintStream out) {
        String prefix = options.directory() + "/" + directory.map(d -> d.path() + "/").orElse("");
        List<ObjectInfo> objects = client().list(prefix);
        for (ObjectInfo o : objects) {
            out.println(o.name().substring(options.directory().length() + 1) + " " + o.length());
        }
    }

    @Override
    public void deleteDirectory(RemoteDirectory directory) {
        long n = client().deleteObjects(options.directory() + "/" + directory.path() + "/");
        if (n == 0) {
            throw new PluginException("no objects under " + directory + " in directory '" + options.directory() + "'");
        }
    }

    @Override
    public void close() {
        if (client != null) {
            connections.giveBack(client);
            client = null;
        }
    }

    static <T> T await(java.util.concurrent.CompletableFuture<T> f) throws IOException {
        try {
            return f.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof RuntimeException re) {
                throw re;
            }
            throw new IOException(c);
        }
    }
}
