package io.gpdedup.store.s3;

import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.container.DiskSpace;
import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.crypt.Kek;
import io.gpdedup.store.crypt.UnitEncryption;
import io.gpdedup.store.engine.CommitPolicy;
import io.gpdedup.store.engine.EngineSettings;
import io.gpdedup.store.engine.StoreException;
import io.gpdedup.store.engine.UnitBackend;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;

/**
 * Units kept in an S3-compatible bucket under a prefix (docs/s3.md). Local disk holds only the
 * spool of containers being written and a bounded read cache, both under {@code cache-dir} and
 * emptied at start; the index lives in memory. Each unit is served under a lease
 * ({@link UnitLease}) renewed by a timer of this backend.
 */
public final class S3Backend implements UnitBackend {
    private static final Logger LOG = Logger.getLogger(S3Backend.class.getName());
    /** Containers uploaded at once, over every unit. */
    private static final int UPLOADERS = 4;

    private final S3Settings s3;
    private final EngineSettings settings;
    private final Bucket bucket;
    private final StoreIdentity me;
    private final boolean conditional;
    private final ReadCache cache;
    private final DiskSpace spoolSpace;
    private final ExecutorService uploads = Executors.newFixedThreadPool(UPLOADERS, r -> {
        Thread t = new Thread(r, "gpdedup-s3-upload");
        t.setDaemon(true);
        return t;
    });
    private final ScheduledExecutorService renewals = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "gpdedup-s3-lease");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, UnitLease> leases = new ConcurrentHashMap<>();
    private final Map<String, CommitPolicy> locking;
    private final Kek kek;

    private S3Backend(S3Settings s3, EngineSettings settings, Bucket bucket, StoreIdentity me, boolean conditional, ReadCache cache,
            DiskSpace spoolSpace, Map<String, CommitPolicy> locking, Kek kek) {
        this.s3 = s3;
        this.kek = kek;
        this.locking = locking;
        this.settings = settings;
        this.bucket = bucket;
        this.me = me;
        this.conditional = conditional;
        this.cache = cache;
        this.spoolSpace = spoolSpace;
        long every = Math.max(1, s3.leaseSeconds() / 6);
        renewals.scheduleWithFixedDelay(this::renewAll, every, every, TimeUnit.SECONDS);
    }

    /** A factory for {@link io.gpdedup.store.engine.DedupStoreEngine#open(Path, EngineSettings, UnitBackend.Factory)}. */
    public static UnitBackend.Factory factory(S3Settings s3) {
        return factory(s3, Map.of());
    }

    /**
     * As {@link #factory(S3Settings)}, for units whose config asks for a retention lock: {@code
     * locking} has each one's commit policy, which the bucket must be able to hold (S3 Object Lock).
     */
    public static UnitBackend.Factory factory(S3Settings s3, Map<String, CommitPolicy> locking) {
        return factory(s3, locking, null);
    }

    /**
     * As {@link #factory(S3Settings, Map)}, for units encrypted under data keys that {@code kek}
     * wraps (null: no key, plaintext units only).
     */
    public static UnitBackend.Factory factory(S3Settings s3, Map<String, CommitPolicy> locking, Kek kek) {
        return (dataDir, settings) -> open(dataDir, settings, s3, Map.copyOf(locking), kek);
    }

    /**
     * Checks the bucket (it must exist, the credentials must reach it, and it must have Object
     * Lock enabled when a unit asks for a retention lock: else a {@link BucketUnavailableException}
     * before anything is written), finds whether it honours conditional writes, and empties the
     * cache directory.
     */
    static S3Backend open(Path dataDir, EngineSettings settings, S3Settings s3, Map<String, CommitPolicy> locking, Kek kek)
            throws IOException {
        Bucket bucket = Bucket.open(s3);
        try {
            boolean conditional;
            try {
                bucket.check();
                requireObjectLock(bucket, locking);
                conditional = bucket.conditionalWrites();
            } catch (BucketException e) {
                throw new BucketUnavailableException("storage: " + e.getMessage(), e);
            }
            OwnerOnly.createDirectories(s3.cacheDir());
            OwnerOnly.tighten(s3.cacheDir(), "cache directory");
            ReadCache cache = ReadCache.open(s3.cacheDir().resolve("read"), s3.cacheBytes());
            DiskSpace space = DiskSpace.of(s3.cacheDir(), settings.diskReserveBytes());
            LOG.info(() -> "storage: " + s3.describe() + ", cache " + s3.cacheDir() + " (" + (s3.cacheBytes() >> 20) + " MiB), leases "
                    + (conditional ? "by conditional writes" : "by write, wait " + UnitLease.SETTLE_MILLIS + " ms and read back"));
            return new S3Backend(s3, settings, bucket, StoreIdentity.of(dataDir), conditional, cache, space, locking, kek);
        } catch (IOException | RuntimeException e) {
            bucket.close();
            throw e;
        }
    }

    /**
     * The checks of {@link #open} that write nothing, for a start to run before it touches its
     * data directory: the bucket exists and the credentials reach it, and it has Object Lock when
     * a unit in {@code locking} asks for a retention lock. A {@link BucketUnavailableException} says what is wrong.
     */
    public static void check(S3Settings s3, Map<String, CommitPolicy> locking) throws BucketUnavailableException {
        try (Bucket bucket = Bucket.open(s3)) {
            bucket.check();
            requireObjectLock(bucket, locking);
        } catch (BucketException e) {
            throw new BucketUnavailableException("storage: " + e.getMessage(), e);
        }
    }

    /** What a reload checks before it takes new unit settings: the bucket can hold every lock they ask for. */
    public void checkLocking(Map<String, CommitPolicy> newLocking) throws BucketException {
        requireObjectLock(bucket, newLocking);
    }

    /** One GetObjectLockConfiguration, only when some unit asks for a lock; names the first such unit's setting when the bucket lacks it. */
    private static void requireObjectLock(Bucket bucket, Map<String, CommitPolicy> locking) throws BucketException {
        String unit = locking.entrySet().stream().filter(e -> e.getValue().lockMode() != RetentionLock.Mode.NONE).map(Map.Entry::getKey)
                .sorted().findFirst().orElse(null);
        if (unit == null || bucket.locks().enabled()) {
            return;
        }
        CommitPolicy p = locking.get(unit);
        throw new BucketException(BucketException.Kind.FAILED, ContainerLocks.withoutObjectLock(bucket.settings(), "units." + unit
                + ".retention-lock asks for " + p.lockMode().word() + " locks of " + p.lockDays() + " days"), null);
    }

    @Override
    public Set<String> existingUnits() {
        return Set.of(); // several stores share a bucket: each opens only the units its config names
    }

    @Override
    public UnitParts openUnit(String name) throws IOException {
        long t0 = System.nanoTime();
        UnitLease lease = UnitLease.acquire(bucket, name, me, s3.leaseSeconds(), conditional);
        try {
            long leased = System.nanoTime();
            Bucket fenced = bucket.fenced(lease::writeLimit);
            UnitEncryption encryption = BucketEncryption.open(fenced, name, kek, lease);
            LOG.info(() -> "unit " + name + ": lease taken in " + (leased - t0) / 1_000_000 + " ms, keys read in "
                    + (System.nanoTime() - leased) / 1_000_000 + " ms");
            BucketContainers containers = new BucketContainers(name, fenced, cache, lease, uploads, s3.cacheDir().resolve("spool").resolve(name),
                    settings, spoolSpace, locking.getOrDefault(name, CommitPolicy.UNRESTRICTED), encryption);
            leases.put(name, lease);
            return new UnitParts(containers, new BucketRecipes(name, fenced, lease, encryption.blobs()), () -> {
                leases.remove(name);
                lease.release();
            });
        } catch (IOException | RuntimeException e) {
            lease.release();
            throw e;
        }
    }

    private void renewAll() {
        for (UnitLease l : leases.values()) {
            l.renew();
        }
    }

    /** Requests sent so far, by operation. */
    public RequestCounters requests() {
        return bucket.counters();
    }

    @Override
    public String describe() {
        return s3.describe();
    }

    @Override
    public void close() {
        renewals.shutdownNow();
        uploads.shutdown();
        try {
            uploads.awaitTermination(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        cache.close();
        bucket.close();
    }

    /** The bucket cannot be used at all (missing, refused credentials, unreachable): the store cannot start. */
    public static final class BucketUnavailableException extends StoreException {
        private static final long serialVersionUID = 1L;

        BucketUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
