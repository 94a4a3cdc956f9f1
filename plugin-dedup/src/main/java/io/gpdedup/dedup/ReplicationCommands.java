package io.gpdedup.dedup;

import io.gpdedup.client.BackupCopier;
import io.gpdedup.client.StoreClient;
import io.gpdedup.plugin.api.ExtraCommand;
import io.gpdedup.plugin.api.PluginLog;
import io.gpdedup.plugin.api.PluginOptions;
import io.gpdedup.protocol.naming.BackupTimestamp;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/**
 * {@code replicate_backup CFG T} and {@code delete_replica CFG T}, the appliance plugins' extra
 * commands, on the remote store named by the config's remote_* options.
 */
final class ReplicationCommands {
    static final String REPLICATE = "replicate_backup";
    static final String DELETE = "delete_replica";

    private final StoreConnections connections;

    ReplicationCommands(StoreConnections connections) {
        this.connections = connections;
    }

    private <T> T withReplicator(DedupOptions options, DedupOptions.Remote remote, PluginLog log, Function<Replicator, T> work) {
        PasswordExposure.checkConnection(options.store(), log);
        PasswordExposure.checkConnection(remote.store(), log);
        StoreClient source = connections.borrow(options.store(), false);
        try {
            StoreClient target = connections.borrow(remote.store(), false);
            try {
                return work.apply(new Replicator(source, options.directory(), target, remote.directory()));
            } finally {
                connections.giveBack(target);
            }
        } finally {
            connections.giveBack(source);
        }
    }

    ExtraCommand replicateCommand() {
        return onTimestamp("TIMESTAMP   (copy backup TIMESTAMP to the remote store; only chunks it lacks travel)", (options, remote, ts, log, out) -> {
            BackupCopier.Result r = withReplicator(options, remote, log, replicator -> replicator.replicate(ts));
            log.info("replicate_backup " + ts + ": " + r.objects() + " objects, " + r.chunksSent() + " of " + r.chunks()
                    + " chunks sent (" + r.bytesSent() + " bytes)");
        });
    }

    ExtraCommand deleteCommand() {
        return onTimestamp("TIMESTAMP   (remove the remote copy of backup TIMESTAMP)", (options, remote, ts, log, out) -> {
            boolean deleted = withReplicator(options, remote, log, r -> r.deleteReplica(ts));
            if (!deleted) {
                // The appliance plugin's wording, which gpbackup's plugin_test.sh looks for.
                out.println("replica of backup " + ts + " already deleted");
            }
            log.info("delete_replica " + ts + ": " + (deleted ? "deleted" : "already deleted"));
        });
    }

    /** What a replication command does with its one argument, a backup timestamp. */
    @FunctionalInterface
    private interface TimestampAction {
        void run(DedupOptions options, DedupOptions.Remote remote, BackupTimestamp timestamp, PluginLog log, PrintStream out);
    }

    private static ExtraCommand onTimestamp(String usage, TimestampAction action) {
        return new ExtraCommand() {
            @Override
            public int arity() {
                return 1;
            }

            @Override
            public String usage() {
                return usage;
            }

            @Override
            public void run(PluginOptions options, PluginLog log, List<String> args, Path workingDirectory, InputStream in, PrintStream out) {
                DedupOptions dedup = DedupOptions.from(options, DedupPlugin.NAME);
                DedupOptions.Remote remote = DedupOptions.remote(options, DedupPlugin.NAME);
                PasswordExposure.checkConfigFile(options, log);
                action.run(dedup, remote, BackupTimestamp.parse(args.get(0)), log, out);
            }
        };
    }
}
