package io.gpdedup.store.replication;

import io.gpdedup.client.BackupCopier;
import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.wire.ReplicaTarget;
import io.gpdedup.protocol.wire.ReplicationJobStatus.State;
import io.gpdedup.protocol.wire.ReplicationJobStatus;
import io.gpdedup.store.engine.StoreEngine;
import io.gpdedup.store.engine.StoreException;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * The store's background copies of backups to other stores: jobs that clients queue (REPLICATE),
 * kept in {@link JobFile} across restarts and kill -9, worked one at a time by a
 * {@link ReplicationWorker} with retries and growing delays until they are done, or given up after
 * {@link ReplicationSettings#maxAttempts()}. Finished jobs are kept for the status (the most
 * recent {@value #KEEP_FINISHED}), without their password.
 */
public final class ReplicationQueue implements MeterBinder, AutoCloseable {
    private static final System.Logger LOG = System.getLogger(ReplicationQueue.class.getName());
    static final int KEEP_FINISHED = 100;

    private final JobFile file;
    private final ReplicationSettings settings;
    private final LongSupplier clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final Map<Long, Job> jobs = new LinkedHashMap<>();
    private long nextId;
    private boolean closed;
    private ReplicationWorker worker;
    private final AtomicLong completed = new AtomicLong();
    private final AtomicLong givenUp = new AtomicLong();
    private final AtomicLong attemptsOk = new AtomicLong();
    private final AtomicLong attemptsFailed = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();
    private final AtomicLong chunksSent = new AtomicLong();
    private final AtomicLong refusedAtCap = new AtomicLong();

    private ReplicationQueue(JobFile file, ReplicationSettings settings, LongSupplier clock, JobFile.Contents contents) {
        this.file = file;
        this.settings = settings;
        this.clock = clock;
        this.nextId = contents.nextId();
        long now = clock.getAsLong();
        for (Job j : contents.jobs()) {
            if (j.state == State.RUNNING) {
                // The store stopped (or died) in the middle of it: the copy resumes, at once.
                j.state = State.QUEUED;
                j.nextAttemptAtMillis = now;
            }
            jobs.put(j.id, j);
            nextId = Math.max(nextId, j.id + 1);
        }
    }

    /**
     * Loads the queue of {@code dataDir} and starts working it, reading the backups from {@code engine}.
     *
     * @throws IOException if the saved queue cannot be read (the message names the file, never its content)
     */
    public static ReplicationQueue start(Path dataDir, StoreEngine engine, ReplicationSettings settings) throws IOException {
        return start(dataDir, engine, settings, StoreClient::connect);
    }

    static ReplicationQueue start(Path dataDir, StoreEngine engine, ReplicationSettings settings, ReplicationWorker.Connector connector)
            throws IOException {
        JobFile file = new JobFile(dataDir);
        ReplicationQueue queue = new ReplicationQueue(file, settings, System::currentTimeMillis, file.load());
        long waiting = queue.jobs.values().stream().filter(j -> !j.finished()).count();
        if (waiting > 0) {
            LOG.log(System.Logger.Level.INFO, waiting + " replication jobs waiting in " + file.path());
        }
        queue.worker = ReplicationWorker.start(queue, engine, connector);
        return queue;
    }

    /**
     * Queues a copy of {@code source} (object-name prefix in {@code unit}) to {@code target}. A copy
     * of the same source to the same target that is still waiting is not queued twice: it takes the
     * new password and its id is returned.
     *
     * @throws ReplicationRefusedException if the target is not one of the unit's replication targets
     * @throws StoreException if the unit has as many jobs waiting as it may, or the queue cannot be saved (the job is then not queued)
     */
    public long enqueue(String unit, String source, ReplicaTarget target, String password) {
        if (settings.target(unit, target.host(), target.port()).isEmpty()) {
            throw new ReplicationRefusedException(settings.refusal(unit, target.host(), target.port()));
        }
        lock.lock();
        try {
            if (closed) {
                throw new StoreException("the store is stopping: replication not queued");
            }
            int waiting = 0;
            for (Job j : jobs.values()) {
                if (!j.finished() && j.sameCopy(unit, source, target)) {
                    j.password = password;
                    save("queueing " + j);
                    return j.id;
                }
                if (!j.finished() && j.unit.equals(unit)) {
                    waiting++;
                }
            }
            if (waiting >= settings.maxJobsPerUnit()) {
                refusedAtCap.incrementAndGet();
                LOG.log(System.Logger.Level.WARNING, "replication of unit " + unit + " refused: " + waiting + " jobs not done yet");
                throw new StoreException("replication not queued: unit '" + unit + "' already has " + waiting
                        + " replication jobs waiting, its limit (replication-max-jobs-per-unit); queue it again once some are done");
            }
            long now = clock.getAsLong();
            Job job = new Job(nextId++, unit, source, target, password, now);
            jobs.put(job.id, job);
            try {
                save("queueing " + job);
            } catch (StoreException e) {
                jobs.remove(job.id);
                throw e;
            }
            LOG.log(System.Logger.Level.INFO, "queued " + job);
            changed.signalAll();
            return job.id;
        } finally {
            lock.unlock();
        }
    }

    /** The jobs of one storage unit, oldest first. */
    public List<ReplicationJobStatus> jobs(String unit) {
        lock.lock();
        try {
            return jobs.values().stream().filter(j -> j.unit.equals(unit)).map(Job::status).toList();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for the queued job whose next attempt is due first and marks it running (one more
     * attempt, saved before the copy starts); null once the queue is closed.
     */
    Job nextDue() throws InterruptedException {
        lock.lock();
        try {
            while (!closed) {
                Job next = jobs.values().stream().filter(j -> j.state == State.QUEUED)
                        .min(Comparator.comparingLong((Job j) -> j.nextAttemptAtMillis).thenComparingLong(j -> j.id)).orElse(null);
                long now = clock.getAsLong();
                if (next != null && next.nextAttemptAtMillis <= now) {
                    next.state = State.RUNNING;
                    next.attempts++;
                    next.updatedAtMillis = now;
                    saveQuietly();
                    return next;
                }
                if (next == null) {
                    changed.await();
                } else {
                    changed.await(next.nextAttemptAtMillis - now, TimeUnit.MILLISECONDS);
                }
            }
            return null;
        } finally {
            lock.unlock();
        }
    }

    /** Where a job's copy may go now: empty when the operator took its remote off the unit's replication targets. */
    Optional<ReplicationTarget> target(Job job) {
        return settings.target(job.unit, job.target.host(), job.target.port());
    }

    /** Why a job's remote is no longer allowed, as its error says. */
    String refusal(Job job) {
        return settings.refusal(job.unit, job.target.host(), job.target.port());
    }

    /** The password of a running job, for its login to the remote. */
    String password(Job job) {
        lock.lock();
        try {
            return job.password;
        } finally {
            lock.unlock();
        }
    }

    void sent(Job job, long chunks, long bytes) {
        chunksSent.addAndGet(chunks);
        bytesSent.addAndGet(bytes);
        lock.lock();
        try {
            job.chunksSent += chunks;
            job.bytesSent += bytes;
            job.updatedAtMillis = clock.getAsLong();
        } finally {
            lock.unlock();
        }
    }

    void done(Job job, BackupCopier.Result result) {
        attemptsOk.incrementAndGet();
        completed.incrementAndGet();
        lock.lock();
        try {
            job.state = State.DONE;
            job.objectsCopied = result.objects();
            job.lastError = "";
            finish(job);
        } finally {
            lock.unlock();
        }
    }

    /** A failed attempt: queued again after the next delay, or given up when it cannot succeed or had its last attempt. */
    void failed(Job job, String error, boolean permanent) {
        attemptsFailed.incrementAndGet();
        lock.lock();
        try {
            job.lastError = error;
            if (permanent || job.attempts >= settings.maxAttempts()) {
                givenUp.incrementAndGet();
                job.state = State.FAILED;
                finish(job);
            } else {
                job.state = State.QUEUED;
                job.updatedAtMillis = clock.getAsLong();
                job.nextAttemptAtMillis = job.updatedAtMillis + settings.delayAfter(job.attempts).toMillis();
                saveQuietly();
            }
        } finally {
            lock.unlock();
        }
    }

    /** The store stops in the middle of a copy: it is taken up again at the next start. */
    void stopped(Job job) {
        lock.lock();
        try {
            job.state = State.QUEUED;
            job.updatedAtMillis = clock.getAsLong();
            job.nextAttemptAtMillis = job.updatedAtMillis;
            saveQuietly();
        } finally {
            lock.unlock();
        }
    }

    /** Called with the lock held: the job needs its password no more; old finished jobs make room. */
    private void finish(Job job) {
        job.password = "";
        job.updatedAtMillis = clock.getAsLong();
        job.nextAttemptAtMillis = 0;
        List<Job> finished = new ArrayList<>(jobs.values().stream().filter(Job::finished).toList());
        for (int i = 0; i < finished.size() - KEEP_FINISHED; i++) {
            jobs.remove(finished.get(i).id);
        }
        saveQuietly();
    }

    private void save(String what) {
        try {
            file.save(nextId, jobs.values());
        } catch (IOException e) {
            throw new StoreException(what + ": cannot save " + file.path() + ": " + e.getMessage(), e);
        }
    }

    /** For the worker's updates: a job whose state could not be saved is still worked; a restart repeats at most its last attempt. */
    private void saveQuietly() {
        try {
            save("updating the replication queue");
        } catch (StoreException e) {
            LOG.log(System.Logger.Level.WARNING, e.getMessage());
        }
    }

    boolean isClosed() {
        lock.lock();
        try {
            return closed;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (State s : List.of(State.QUEUED, State.RUNNING)) {
            Gauge.builder("gpdedup.store.replication.jobs", this, q -> q.count(s))
                    .description("replication jobs waiting (queued) or copying (running)")
                    .tag("state", s.name().toLowerCase(java.util.Locale.ROOT)).register(registry);
        }
        Gauge.builder("gpdedup.store.replication.oldest.waiting.seconds", this, ReplicationQueue::oldestWaitingSeconds)
                .description("age of the oldest replication job not yet done (0 when none waits)").register(registry);
        FunctionCounter.builder("gpdedup.store.replication.jobs.completed", completed, AtomicLong::get)
                .description("replication jobs done").register(registry);
        FunctionCounter.builder("gpdedup.store.replication.jobs.failed", givenUp, AtomicLong::get)
                .description("replication jobs given up").register(registry);
        FunctionCounter.builder("gpdedup.store.replication.attempts", attemptsOk, AtomicLong::get)
                .description("copy attempts").tag("outcome", "ok").register(registry);
        FunctionCounter.builder("gpdedup.store.replication.attempts", attemptsFailed, AtomicLong::get)
                .description("copy attempts").tag("outcome", "error").register(registry);
        FunctionCounter.builder("gpdedup.store.replication.sent.bytes", bytesSent, AtomicLong::get)
                .description("chunk payload bytes sent to remote stores").register(registry);
        FunctionCounter.builder("gpdedup.store.replication.sent.chunks", chunksSent, AtomicLong::get)
                .description("chunks sent to remote stores (the ones they lacked)").register(registry);
        FunctionCounter.builder("gpdedup.store.limit.refusals", refusedAtCap, AtomicLong::get)
                .description("requests refused and connections failed at a limit on what clients hold")
                .tag("limit", "replication-jobs").register(registry);
    }

    private double count(State state) {
        lock.lock();
        try {
            return jobs.values().stream().filter(j -> j.state == state).count();
        } finally {
            lock.unlock();
        }
    }

    private double oldestWaitingSeconds() {
        lock.lock();
        try {
            long now = clock.getAsLong();
            return jobs.values().stream().filter(j -> !j.finished()).mapToLong(j -> now - j.enqueuedAtMillis).max().orElse(0) / 1000.0;
        } finally {
            lock.unlock();
        }
    }

    /** Stops the worker (a copy in progress is abandoned and resumes at the next start); the saved queue stays. Idempotent. */
    @Override
    public void close() {
        lock.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        if (worker != null) {
            worker.stop();
        }
    }
}
