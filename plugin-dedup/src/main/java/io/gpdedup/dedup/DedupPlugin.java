package io.gpdedup.dedup;

import io.gpdedup.dedup.pipeline.MemoryBudget;
import io.gpdedup.dedup.pipeline.PipelineSettings;
import io.gpdedup.plugin.api.ExtraCommand;
import io.gpdedup.plugin.api.OptionSpec;
import io.gpdedup.plugin.api.PluginDefinition;
import io.gpdedup.plugin.api.PluginLog;
import io.gpdedup.plugin.api.PluginOptions;
import io.gpdedup.plugin.api.PluginProcess;
import io.gpdedup.plugin.api.StorageBackend;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The definition and {@code main} of {@code gpbackup_dedup_plugin}. One instance lives as long as
 * its process, or as long as a host agent: the worker pool, store connections, the memory budget of
 * the data streams and the chunk-size check are shared by every call it serves.
 */
public final class DedupPlugin implements PluginDefinition {
    public static final String NAME = "gpbackup_dedup_plugin";
    /**
     * JVM property that sets the streams' memory budget in bytes instead of half the heap, e.g. in a
     * {@code .launch} file's {@code agent_flags}: tests use it to run streams on little memory.
     */
    public static final String BUDGET_PROPERTY = "gpdedup.memory-budget-bytes";

    private final StoreConnections connections = new StoreConnections();
    private final ChunkingFreeze freeze = new ChunkingFreeze();
    private final ReplicationCommands replication = new ReplicationCommands(connections);
    private final MemoryBudget budget = Long.getLong(BUDGET_PROPERTY) == null
            ? MemoryBudget.ofHeap(Runtime.getRuntime().maxMemory())
            : MemoryBudget.of(Long.getLong(BUDGET_PROPERTY));
    private volatile ExecutorService workers;

    public static void main(String[] args) {
        PluginProcess.main(new DedupPlugin(), args);
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public List<OptionSpec> options() {
        return DedupOptions.specs();
    }

    @Override
    public StorageBackend open(PluginOptions options, PluginLog log) {
        DedupOptions o = DedupOptions.from(options, NAME);
        PasswordExposure.checkConfigFile(options, log);
        return new DedupBackend(o, connections, freeze, PipelineSettings.defaults(o.chunking(), o.codec(), budget, workers()), log);
    }

    @Override
    public void close() {
        connections.closeIdle();
    }

    @Override
    public Map<String, ExtraCommand> extraCommands() {
        return Map.of(EncryptPasswordCommand.NAME, new EncryptPasswordCommand(),
                ReplicationCommands.REPLICATE, replication.replicateCommand(),
                ReplicationCommands.DELETE, replication.deleteCommand(),
                CheckStoreCommand.NAME, new CheckStoreCommand(connections));
    }

    /** Fingerprinting, compression and decoding: one thread per core, shared by all streams. */
    private ExecutorService workers() {
        ExecutorService w = workers;
        if (w == null) {
            synchronized (this) {
                if (workers == null) {
                    AtomicInteger n = new AtomicInteger();
                    ThreadFactory daemon = r -> {
                        Thread t = new Thread(r, "gpdedup-worker-" + n.incrementAndGet());
                        t.setDaemon(true);
                        return t;
                    };
                    workers = Executors.newFixedThreadPool(Math.max(2, Runtime.getRuntime().availableProcessors()), daemon);
                }
                w = workers;
            }
        }
        return w;
    }
}
