package io.gpdedup.store.s3;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.engine.CommitPolicy;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * The retention the bucket's Object Lock gives a unit's containers (docs/s3.md, section 7): what a
 * new upload carries, what each container is known to have, and its extension when a locked
 * commit references it. A container and its index object always carry the same retention; the
 * index object is extended first, so the container's own is never longer, and that is what is read
 * back after a restart.
 *
 * <p>Container retentions end at a UTC midnight, the first at or after the lock that needs them:
 * every commit of a day then finds the containers it shares with the commits before it held long
 * enough, and each container costs at most one extension per day, not one per commit. A container
 * is held at most a day longer than the objects that reference it.
 */
final class ContainerLocks {
    private static final Logger LOG = Logger.getLogger(ContainerLocks.class.getName());
    private static final long DAY_MILLIS = TimeUnit.DAYS.toMillis(1);

    private final String unit;
    private final UnitKeys keys;
    private final Bucket bucket;
    private final CommitPolicy locking;
    private final ExecutorService pool;
    /** The retention each container is known to have in the bucket; absent: not known yet (read when needed). */
    private final Map<Integer, RetentionLock> held = new ConcurrentHashMap<>();

    /** {@code locking}: what the unit's config asks of its commits; new containers are uploaded held as a commit now would need. */
    ContainerLocks(String unit, Bucket bucket, CommitPolicy locking, ExecutorService pool) {
        this.unit = unit;
        this.keys = new UnitKeys(unit);
        this.bucket = bucket;
        this.locking = locking;
        this.pool = pool;
    }

    /** The retention a new container is uploaded with: what a commit now needs, so that the commits of the day need no extension. */
    RetentionLock forUpload() {
        return locking.lockMode() == RetentionLock.Mode.NONE ? RetentionLock.NONE : throughDay(locking.lockAt(System.currentTimeMillis()));
    }

    /** The container was uploaded with {@code lock}. */
    void uploaded(int id, RetentionLock lock) {
        held.put(id, lock);
    }

    /**
     * Deletes the containers: each one's index object first, so that a deletion cut short leaves a
     * container without one, an orphan the next start removes. Returns those the bucket still
     * holds under retention, asking the bucket only about those not known to be held.
     */
    List<Integer> delete(List<Integer> ids) throws IOException {
        long now = System.currentTimeMillis();
        List<Integer> kept = new ArrayList<>();
        List<String> indexes = new ArrayList<>();
        for (int id : ids) {
            if (heldAt(id, now)) {
                kept.add(id);
            } else {
                indexes.add(keys.containerIndex(id));
            }
        }
        bucket.counters().retainedDeletes(kept.size());
        List<String> heldIndexes = bucket.deleteAll(indexes);
        List<String> containers = new ArrayList<>();
        for (int id : ids) {
            if (!kept.contains(id) && !heldIndexes.contains(keys.containerIndex(id))) {
                containers.add(keys.container(id));
            }
        }
        List<String> heldContainers = bucket.deleteAll(containers);
        for (int id : ids) {
            if (kept.contains(id)) {
                continue;
            }
            if (heldIndexes.contains(keys.containerIndex(id)) || heldContainers.contains(keys.container(id))) {
                kept.add(id);
            } else {
                held.remove(id);
            }
        }
        if (!kept.isEmpty()) {
            LOG.info(() -> "unit " + unit + ": " + kept.size() + " containers stay in the bucket, which holds them under retention;"
                    + " a collection after it ends deletes them");
        }
        return kept;
    }

    /** Whether the bucket holds the container at {@code nowMillis} (read from it once when not known). */
    boolean heldAt(int id, long nowMillis) throws IOException {
        return bucket.locks().versioned() && known(id).holdsAt(nowMillis);
    }

    private RetentionLock known(int id) throws IOException {
        RetentionLock k = held.get(id);
        if (k == null) {
            k = bucket.locks().of(keys.container(id), null);
            held.put(id, k);
        }
        return k;
    }

    /**
     * Extends the retention of the containers (in the bucket) and their index objects to cover
     * {@code lock}, in parallel, skipping those known to be held long enough; returns once all are.
     * Nothing to do in a bucket without Object Lock, which the start allows only when no unit's
     * config asks for a lock.
     */
    void extend(Collection<Integer> ids, RetentionLock lock) throws IOException {
        if (!bucket.locks().enabled()) {
            return; // a lock no unit's config asks for (a copy keeping its source's): the store's own only
        }
        RetentionLock wanted = throughDay(lock);
        List<CompletableFuture<Void>> pending = new ArrayList<>();
        for (int id : ids) {
            RetentionLock k = held.get(id);
            if (k != null && covers(k, wanted)) {
                continue; // the common case, without a request
            }
            pending.add(CompletableFuture.runAsync(() -> {
                try {
                    RetentionLock now = known(id);
                    if (!covers(now, wanted)) {
                        RetentionLock longer = extended(now, wanted);
                        bucket.locks().extend(keys.containerIndex(id), longer);
                        bucket.locks().extend(keys.container(id), longer);
                        held.put(id, longer);
                    }
                } catch (IOException e) {
                    throw new CompletionException(e);
                }
            }, pool));
        }
        Futures.awaitAll(pending, Futures::asIOException, e -> new IOException("interrupted while extending retentions", e));
    }

    /** The one line for a retention lock the bucket cannot hold: {@code what} says who asked for it. */
    static String withoutObjectLock(S3Settings s3, String what) {
        return what + ", but bucket " + s3.bucket() + " at " + (s3.endpoint() == null ? "AWS S3 (" + s3.region() + ")" : s3.endpoint())
                + " does not have S3 Object Lock enabled: create the bucket with object lock enabled (docs/s3.md, section 7)";
    }

    private static boolean covers(RetentionLock have, RetentionLock wanted) {
        return have.mode() != RetentionLock.Mode.NONE && have.untilMillis() >= wanted.untilMillis();
    }

    /**
     * A container's retention extended to {@code wanted}'s end, in the mode it has: a bucket never
     * shortens a retention nor weakens compliance, and turns governance into compliance only for
     * credentials that may bypass governance, which the store's should not have.
     */
    static RetentionLock extended(RetentionLock have, RetentionLock wanted) {
        if (have.mode() == RetentionLock.Mode.NONE) {
            return wanted;
        }
        return new RetentionLock(have.mode(), Math.max(have.untilMillis(), wanted.untilMillis()));
    }

    /** The lock ending at the first UTC midnight at or after {@code lock}'s end. */
    static RetentionLock throughDay(RetentionLock lock) {
        if (lock.mode() == RetentionLock.Mode.NONE) {
            return lock;
        }
        return new RetentionLock(lock.mode(), Math.floorDiv(lock.untilMillis() + DAY_MILLIS - 1, DAY_MILLIS) * DAY_MILLIS);
    }

}
