package io.gpdedup.store.replication;

import io.gpdedup.store.chunk.Fingerprint;
import io.gpdedup.store.chunk.ObjectInfo;
import io.gpdedup.store.chunk.Recipe;
import io.gpdedup.store.chunk.StoredChunk;
import io.gpdedup.store.client.BackupCopier;
import io.gpdedup.store.client.ClientSettings;
import io.gpdedup.store.client.ReplicationException;
import io.gpdedup.store.client.StoreClient;
import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.engine.StoreEngine;
import io.gpdedup.store.protocol.ReplicaTarget;
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

    private final ReplicationQueue queue;
    private final StoreEngine engine;
    private final Thread thread;
    private volatile StoreClient remote;

    private ReplicationWorker(ReplicationQueue queue, StoreEngine engine) {
        this.queue = queue;
        this.engine = engine;
        this.thread = new Thread(this::run, "store-replication");
        this.thread.setDaemon(true);
    }

    static ReplicationWorker start(ReplicationQueue queue, StoreEngine engine) {
        ReplicationWorker w = new ReplicationWorker(queue, engine);
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
        ReplicaTarget t = job.target;
        ClientSettings settings = ClientSettings.of(t.host(), t.port(), t.unit(), t.user(), queue.password(job));
        try (StoreClient client = StoreClient.connect(settings)) {
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
        } catch (RuntimeException e) {
            if (queue.isClosed()) {
                queue.stopped(job);
                return;
            }
            boolean permanent = e instanceof ReplicationException re && re.permanent();
            String error = e.getMessage();
            if (error == null) {
                LOG.log(System.Logger.Level.ERROR, job + " failed unexpectedly", e);
                error = "unexpected failure in the store (its log has the details)";
            }
            int attempt = job.attempts;
            queue.failed(job, error, permanent);
            LOG.log(System.Logger.Level.WARNING, job + " attempt " + attempt + " failed" + (permanent ? " for good" : "") + ": " + error);
        } finally {
            remote = null;
        }
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
