package io.gpdedup.dedup;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreClientException;
import io.gpdedup.dedup.pipeline.BackupPipeline;
import io.gpdedup.dedup.pipeline.MemoryBudget;
import io.gpdedup.dedup.pipeline.PipelineSettings;
import io.gpdedup.dedup.pipeline.RestorePipeline;
import io.gpdedup.plugin.api.ByteRanges;
import io.gpdedup.plugin.api.CommitGate;
import io.gpdedup.plugin.api.Hook;
import io.gpdedup.plugin.api.HookScope;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.plugin.api.PluginLog;
import io.gpdedup.plugin.api.RemoteDirectory;
import io.gpdedup.plugin.api.StorageBackend;
import io.gpdedup.plugin.api.StoredData;
import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.naming.NameException;
import io.gpdedup.protocol.naming.RemoteName;
import io.gpdedup.protocol.wire.ReplicaTarget;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The plugin commands on a storage unit: object {@code <directory>/backups/<date>/<timestamp>/<file>}
 * per gpbackup key. One borrowed connection per call, handed back on close.
 */
final class DedupBackend implements StorageBackend {
    private static final List<String> GPBACKUP_COMPRESSION_SUFFIXES = List.of(".gz", ".zst");
    private final DedupOptions options;
    private final StoreConnections connections;
    private final ChunkingFreeze freeze;
    private final PipelineSettings pipeline;
    private final PluginLog log;
    private StoreClient client;
    private int reconnectsBefore;

    DedupBackend(DedupOptions options, StoreConnections connections, ChunkingFreeze freeze, PipelineSettings pipeline, PluginLog log) {
        this.options = options;
        this.connections = connections;
        this.freeze = freeze;
        this.pipeline = pipeline;
        this.log = log;
    }

    private StoreClient client() {
        return client(false);
    }

    /** The call's connection; {@code patient}: a data call, which waits out a store restart from its start. */
    private StoreClient client(boolean patient) {
        if (client == null) {
            PasswordExposure.checkConnection(options.store(), log);
            client = connections.borrow(options.store(), patient);
            reconnectsBefore = client.reconnects();
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
        } else if (hook.isBackup() && hook.scope() == HookScope.COORDINATOR && options.replication().isPresent()) {
            // gpbackup runs the coordinator's cleanup once, after its report is stored; also after a
            // failed backup, and a failed cleanup would fail a good backup. So: never throw here.
            try {
                queueReplication(hook.localBackupDirectory(), options.replication().get());
            } catch (RuntimeException e) {
                log.warning("replication not queued: " + (e.getMessage() == null ? "unexpected failure" : e.getMessage()));
            }
        }
    }

    /**
     * Asks the store to copy the backup just taken to the remote in the background, if gpbackup's
     * report says it succeeded. Whatever goes wrong is a warning in the log, not a failed hook:
     * the backup is good either way, and replicate_backup can copy it later.
     */
    private void queueReplication(Path backupDirectory, DedupOptions.Remote remote) {
        BackupTimestamp ts;
        try {
            ts = timestampOf(backupDirectory);
        } catch (PluginException | NameException e) {
            log.warning("replication: " + e.getMessage() + ": nothing queued");
            return;
        }
        Optional<String> status;
        try {
            status = BackupReport.status(backupDirectory, ts);
        } catch (IOException e) {
            log.warning("backup " + ts + " not replicated: cannot read its report " + BackupReport.file(backupDirectory, ts) + ": " + e.getMessage());
            return;
        }
        if (status.isEmpty()) {
            log.warning("backup " + ts + " not replicated: no backup status in " + BackupReport.file(backupDirectory, ts)
                    + " (gpbackup writes it when the backup ends)");
            return;
        }
        if (!status.get().equals(BackupReport.SUCCESS)) {
            log.info("backup " + ts + " not replicated: its report says " + status.get());
            return;
        }
        ClientSettings to = remote.store();
        ReplicaTarget target = new ReplicaTarget(to.host(), to.port(), to.unit(), to.user(), Replicator.backupPrefix(remote.directory(), ts));
        try {
            long job = client().replicate(Replicator.backupPrefix(options.directory(), ts), target, to.password());
            log.info("backup " + ts + " queued for replication to " + target + " as job " + job + " of gpdedup-store at "
                    + client().address());
        } catch (PluginException | StoreClientException e) {
            log.warning("backup " + ts + " not queued for replication: " + e.getMessage() + " (copy it with replicate_backup)");
        }
    }

    /** gpbackup's backup directory ends in {@code backups/<YYYYMMDD>/<timestamp>}. */
    private static BackupTimestamp timestampOf(Path backupDirectory) {
        Path last = backupDirectory.getFileName();
        if (last == null) {
            throw new PluginException("cannot tell the backup timestamp from directory " + backupDirectory);
        }
        return BackupTimestamp.parse(last.toString());
    }

    @Override
    public void backupData(RemoteName name, InputStream in) throws IOException {
        warnIfCompressedByGpbackup(name);
        // Admitted before anything else is taken (a connection, buffers): calls beyond the budget queue here.
        try (MemoryBudget.Stream stream = pipeline.admitBackup()) {
            backupData(name, in, stream);
        }
    }

    private void backupData(RemoteName name, InputStream in, MemoryBudget.Stream stream) throws IOException {
        StoreClient c = client(true);
        freeze.check(c, options.chunking());
        String object = objectName(name);
        try (BackupSession session = c.beginBackup()) {
            session.retainUpTo(options.failoverRetain(), new BackupSession.Room() {
                @Override
                public boolean take(long bytes) {
                    return stream.takeRetained(bytes);
                }

                @Override
                public void giveBack(long bytes) {
                    stream.giveBackRetained(bytes);
                }
            });
            BackupPipeline.Result r = new BackupPipeline(pipeline).store(in, session, stream);
            CommitGate.commit(() -> Futures.await(session.commit(object, r.recipe()), "committing " + object), () -> c.deleteObject(object));
            log.info("backup_data " + object + ": " + r.recipe().totalLength() + " bytes in " + r.chunks() + " chunks, "
                    + r.newChunks() + " new (" + r.newBytes() + " bytes, " + r.sentBytes() + " sent)"
                    + (session.leases() > 1 ? "; the connection was lost " + (session.leases() - 1) + " times, "
                            + session.triedAgain() + " batches and steps were done again on a new lease" : ""));
        } catch (StoreClientException e) {
            throw storeFailure(e);
        }
    }

    /**
     * gpbackup without --no-compression names each data file with its codec's suffix: such a stream
     * is stored as it comes, but compressed bytes change throughout when a few rows do, so little of
     * it deduplicates against the previous backup.
     */
    private void warnIfCompressedByGpbackup(RemoteName name) {
        for (String suffix : GPBACKUP_COMPRESSION_SUFFIXES) {
            if (name.fileName().endsWith(suffix)) {
                log.warning("backup_data " + objectName(name) + ": gpbackup compressed this data (file name ends in " + suffix
                        + "), which defeats deduplication; run gpbackup with --no-compression (the plugin compresses what the store lacks)");
                return;
            }
        }
    }

    /** A store failure as the plugin reports it: one line, no exception class. */
    private static PluginException storeFailure(StoreClientException e) {
        return new PluginException("gpdedup-store: " + e.getMessage(), e);
    }

    @Override
    public StoredData openData(RemoteName name) throws IOException {
        String object = objectName(name);
        MemoryBudget.Stream stream = pipeline.admitRestore();
        Recipe recipe;
        try {
            recipe = client(true).recipe(object).orElseThrow(() -> new PluginException("no backup object " + name
                    + " in storage unit '" + options.store().unit() + "' directory '" + options.directory() + "'"));
        } catch (StoreClientException e) {
            stream.close();
            throw storeFailure(e);
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
                try {
                    restore.writeAll(recipe, out, stream);
                } catch (StoreClientException e) {
                    throw storeFailure(e);
                }
            }

            @Override
            public void writeRanges(ByteRanges ranges, OutputStream out) throws IOException {
                try {
                    restore.writeRanges(recipe, ranges, out, stream);
                } catch (StoreClientException e) {
                    throw storeFailure(e);
                }
            }

            @Override
            public void close() {
                stream.close();
            }
        };
    }

    @Override
    public void deleteBackup(BackupTimestamp timestamp) {
        long n;
        try {
            n = client().deleteObjects(options.directory() + "/" + RemoteName.backupPrefix(timestamp) + "/");
        } catch (StoreClientException e) {
            throw storeFailure(e);
        }
        log.info("delete_backup " + timestamp + ": " + n + " objects");
    }

    @Override
    public void listDirectory(Optional<RemoteDirectory> directory, PrintStream out) {
        String prefix = options.directory() + "/" + directory.map(d -> d.path() + "/").orElse("");
        List<ObjectInfo> objects;
        try {
            objects = client().list(prefix);
        } catch (StoreClientException e) {
            throw storeFailure(e);
        }
        for (ObjectInfo o : objects) {
            out.println(o.name().substring(options.directory().length() + 1) + " " + o.length());
        }
    }

    @Override
    public void deleteDirectory(RemoteDirectory directory) {
        long n;
        try {
            n = client().deleteObjects(options.directory() + "/" + directory.path() + "/");
        } catch (StoreClientException e) {
            throw storeFailure(e);
        }
        if (n == 0) {
            throw new PluginException("no objects under " + directory + " in directory '" + options.directory() + "'");
        }
    }

    @Override
    public void close() {
        if (client != null) {
            int lost = client.reconnects() - reconnectsBefore;
            if (lost > 0) {
                log.info("the connection to gpdedup-store was lost and replaced " + lost + " times during this call, the last time by one to "
                        + client.address());
            }
            connections.giveBack(client);
            client = null;
        }
    }
}
