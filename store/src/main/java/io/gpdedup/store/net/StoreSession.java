package io.gpdedup.store.net;

import io.gpdedup.store.engine.BackupLease;
import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.metrics.StoreMetrics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One authenticated connection's view of the store: its storage unit and the leases it opened.
 * Lease ids are unique server-wide but only valid on the connection that opened them.
 */
public final class StoreSession {
    private static final System.Logger LOG = System.getLogger(StoreSession.class.getName());
    private static final AtomicLong NEXT_LEASE = new AtomicLong(1);

    final StorageUnit unit;
    final String user;
    /** The protocol version agreed on the connection: what its replies may carry. */
    final int version;
    private final StoreMetrics metrics;
    private final BackupLeaseCounts counts;
    private final Map<Long, OpenBackupLease> leases = new ConcurrentHashMap<>();
    private volatile boolean closed;

    public StoreSession(StorageUnit unit, String user, int version, StoreMetrics metrics, BackupLeaseCounts counts) {
        this.unit = unit;
        this.user = user;
        this.version = version;
        this.metrics = metrics;
        this.counts = counts;
    }

    /** Begins a backup in the unit, unless a lease cap is reached. */
    OpenBackupLease open() {
        counts.take(unit.name(), user, leases.size());
        BackupLease lease;
        try {
            lease = unit.beginBackup();
        } catch (RuntimeException | Error e) {
            counts.give(unit.name());
            throw e;
        }
        OpenBackupLease open = new OpenBackupLease(NEXT_LEASE.getAndIncrement(), lease);
        leases.put(open.id, open);
        metrics.leaseOpened();
        return open;
    }

    OpenBackupLease get(long id) {
        OpenBackupLease l = leases.get(id);
        if (l == null) {
            throw new BadRequestException("no open lease " + id + " on this connection");
        }
        return l;
    }

    /** Ends the lease's use on this connection; the caller closes it. */
    OpenBackupLease take(long id) {
        OpenBackupLease l = leases.remove(id);
        if (l == null) {
            throw new BadRequestException("no open lease " + id + " on this connection");
        }
        return l;
    }

    /** Closes the engine lease of one taken with {@link #take}. */
    void release(OpenBackupLease l) {
        try {
            l.lease.close();
        } finally {
            counts.give(unit.name());
            metrics.leaseClosed();
        }
    }

    /** Marks the connection gone: requests still queued are then skipped. */
    void markClosed() {
        closed = true;
    }

    boolean closed() {
        return closed;
    }

    /**
     * The connection is gone: its leases are aborted once {@code grace} has passed. Until then their
     * pins keep garbage collection off the chunks they put or were told are present, which a client
     * that lost the connection (a network fault, an idle close) asks about again on its new lease.
     */
    void abortAllAfter(Duration grace, ScheduledExecutorService timer, Executor executor) {
        if (grace.isZero() || leases.isEmpty()) {
            abortAll();
            return;
        }
        try {
            timer.schedule(() -> {
                try {
                    executor.execute(this::abortAll);
                } catch (RejectedExecutionException stopping) {
                    abortAll();
                }
            }, grace.toNanos(), TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException stopping) {
            abortAll();
        }
    }

    /** Aborts every lease still open: nothing they wrote becomes visible. */
    void abortAll() {
        List<OpenBackupLease> open = new ArrayList<>(leases.values());
        leases.clear();
        for (OpenBackupLease l : open) {
            try {
                release(l);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "aborting lease " + l.id + " failed", e);
            }
        }
    }
}
