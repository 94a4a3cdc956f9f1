package io.gpdedup.store.replication;

import io.gpdedup.client.BackupCopier;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.ReplicationException;
import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.wire.ReplicaTarget;
import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.engine.StoreEngine;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The thread that works a {@link ReplicationQueue}: takes the job that is due, logs in to its
 * remote store with a client of its own, copies the backup out of the engine with
 * {@link BackupCopier}, and tells the queue how it went. One copy at a time, so replication never
 * takes more than one connection's worth of the store's disks and network from the backups.
 */
final class ReplicationWorker {
    private static final System.Logger LOG = System.getLogger(ReplicationWorker.class.getName());

    /** How the worker logs in to a remote store; {@link StoreClient#connect} but in tests that make it fail. */
    @FunctionalInterface
    interface Connector {
        StoreClient connect(ClientSettings settings);
    }

    private final ReplicationQueue queue;
    private final StoreEngine engine;
    private final Connector connector;
    private final Thread thread;
    private volatile StoreClient remote;

    private ReplicationWorker(ReplicationQueue queue, StoreEngine engine, Connector connector) {
        this.queue = queue;
        this.engine = engine;
        this.connector = connector;
        this.thread = new Thread(this::run, "store-replication");
        this.thread.setDaemon(true);
    }

    static ReplicationWorker start(ReplicationQueue queue, StoreEngine engine, Connector connector) {
        ReplicationWorker w = new ReplicationWorker(queue, engine, connector);
        w.thread.start();
        return w;
    }

    private void run() {
        try {
            Job job;
            while ((job = queue.nextDue()) != null) {
                work(job);
            }
        } catch (InterruptedException e) {
            // Nobody interrupts this thread; should the JVM, the queue simply stops being worked.
            Thread.currentThread().interrupt();
        }
    }

    private void work(Job job) {
        try {
            copy(job);
        } catch (Throwable e) {
            // Whatever went wrong (an Error too: out of memory, a bug), this job is over and the next ones still get worked.
            try {
                if (queue.isClosed()) {
                    queue.stopped(job);
                    return;
                }
                boolean permanent = e instanceof Error || e instanceof ReplicationException re && re.permanent();
                String error = reason(e);
                if (e instanceof Error || e.getMessage() == null) {
                    LOG.log(System.Logger.Level.ERROR, job + " failed unexpectedly", e);
                }
                int attempt = job.attempts;
                queue.failed(job, error, permanent);
                LOG.log(System.Logger.Level.WARNING, job + " attempt " + attempt + " failed" + (permanent ? " for good" : "") + ": " + error);
            } catch (Throwable again) {
                LOG.log(System.Logger.Level.ERROR, job + ": recording its failure failed too", again);
            }
        } finally {
            remote = null;
        }
    }

    private void copy(Job job) {
        ReplicaTarget t = job.target;
        Optional<ReplicationTarget> allowed = queue.target(job);
        if (allowed.isEmpty()) {
            // Queued while allowed, then the operator took the remote off the list: it is never connected to again.
            String error = queue.refusal(job);
            queue.failed(job, error, true);
            LOG.log(System.Logger.Level.WARNING, job + " failed for good: " + error);
            return;
        }
        ClientSettings settings = ClientSettings.of(t.host(), t.port(), t.unit(), t.user(), queue.password(job)).withTls(allowed.get().tls());
        try (StoreClient client = connector.connect(settings)) {
            remote = client;
            if (queue.isClosed()) {
                queue.stopped(job);
                return;
            }
            BackupCopier copier = new BackupCopier(unitSource(engine.unit(job.unit)), client);
            BackupCopier.Result r = copier.copy(job.source, t.prefix(), (chunks, bytes) -> queue.sent(job, chunks, bytes));
            queue.done(job, r);
            LOG.log(System.Logger.Level.INFO, job + " done: " + r.objects() + " objects (" + r.unchanged() + " already there), "
                    + r.chunksSent() + " of " + r.chunks() + " chunks sent (" + r.bytesSent() + " bytes)");
        }
    }

    /** A failure as the job's status shows it: its own words, never a class name. */
    private static String reason(Throwable e) {
        if (e instanceof OutOfMemoryError) {
            return "the store ran out of memory while copying (its log has the details)";
        }
        if (e instanceof Error || e.getMessage() == null || e.getMessage().isBlank()) {
            return "unexpected failure in the store (its log has the details)";
        }
        return e.getMessage();
    }

    /**
     * Waits for the thread to end once the queue is closed: a copy in progress fails at once (its
     * connection is closed) and stays queued. Never interrupts: an interrupt in the middle of a
     * read would close the engine's file channels under every other reader.
     */
    void stop() {
        StoreClient r = remote;
        if (r != null) {
            r.close();
        }
        try {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The backup's objects read straight out of a storage unit of this store. */
    private static BackupCopier.Source unitSource(StorageUnit unit) {
        return new BackupCopier.Source() {
            @Override
            public List<ObjectInfo> list(String prefix) {
                return unit.list(prefix);
            }

            @Override
            public Optional<Recipe> recipe(String objectName) {
                return unit.recipe(objectName);
            }

            @Override
            public List<StoredChunk> chunks(Fingerprint[] fingerprints) {
                return Arrays.stream(fingerprints).map(unit::read).toList();
            }
        };
    }
}
