package io.gpdedup.store.engine;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.container.CapacityExceededException;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.DiskFullException;
import io.gpdedup.store.index.ChunkIndex;
import io.gpdedup.store.recipe.CorruptRecipeException;
import io.gpdedup.store.recipe.ObjectName;
import io.gpdedup.store.recipe.RecipeCatalog;
import java.io.Closeable;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One storage unit: its containers (on disk, or in a bucket through a local spool), its in-memory
 * index and its recipe catalog (docs/format.md, docs/s3.md).
 *
 * <p>Locking: the write lock serializes appends, pins and garbage collection, so a collection
 * sees a stable index and every pin; a collection holds it for its whole run, which blocks this
 * unit's writers (missing, put, commit) meanwhile. Reads never take it: a read that races a
 * collection's move of its chunk looks the chunk up again. Commits are made durable by the
 * {@link GroupCommitter}, which takes no unit lock.
 */
final class DedupStorageUnit implements StorageUnit {
    private static final Logger LOG = Logger.getLogger(DedupStorageUnit.class.getName());
    /** Free space a rewrite leaves beyond its copies, for the directory entries and fsyncs around it. */
    private static final long COPY_ROOM_MARGIN = 1L << 20;

    private final String name;
    private final EngineSettings settings;
    private final ContainerStore containers;
    private final ChunkIndex index;
    private final RecipeCatalog catalog;
    private final RecordReader records;
    private final GroupCommitter committer;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Set<DedupBackupLease> leases = new HashSet<>(); // guarded by writeLock
    /** Chunks of commits between validation and durability, by commit; added under writeLock, removed without it. */
    private final Map<Long, Set<Fingerprint>> commitPins = new ConcurrentHashMap<>();
    private final AtomicLong commitIds = new AtomicLong();
    private final AtomicLong newChunksOffered = new AtomicLong();
    private final List<String> recoveryProblems = new CopyOnWriteArrayList<>();
    /**
     * The containers this unit was opened with, and until when collection keeps their chunks
     * (reconnect grace); a container their records were moved to by recompression or collection
     * joins them (added under writeLock).
     */
    private final Set<Integer> containersAtOpen;
    private final long keepThemUntilNanos;
    /**
     * Containers backups appended to since the unit opened that recompression has not settled yet
     * (added under writeLock). Those the unit opened with are not revisited: the list is not kept
     * across restarts.
     */
    private final Set<Integer> toRecompress = new ConcurrentSkipListSet<>();
    /** Containers of {@link #toRecompress} a caller of {@link #recompressNext} is working on (guarded by writeLock). */
    private final Set<Integer> recompressing = new HashSet<>();
    private int lastAppendedContainer; // guarded by writeLock
    /** Whether the saved index was dropped by recompression and not saved again yet. */
    private boolean indexDropped; // guarded by writeLock
    private final Closeable onClose;
    private volatile boolean closed;

    private DedupStorageUnit(String name, EngineSettings settings, ContainerStore containers, ChunkIndex index,
                            RecipeCatalog catalog, List<String> problems, Closeable onClose) {
        this.name = name;
        this.settings = settings;
        this.containers = containers;
        this.index = index;
        this.catalog = catalog;
        this.records = new RecordReader(name, containers, index);
        this.onClose = onClose;
        this.recoveryProblems.addAll(problems);
        this.committer = new GroupCommitter(name, containers, catalog, this::saveIndexIfBehind, this::retainChunks);
        this.containersAtOpen = ConcurrentHashMap.newKeySet();
        containers.all().forEach(c -> containersAtOpen.add(c.id()));
        this.keepThemUntilNanos = System.nanoTime() + settings.reconnectGrace().toNanos();
    }

    /**
     * Opens a unit on what its backend opened and recovers it: the index comes from what the
     * containers say (a snapshot and scans, or checkpoints and index objects), the catalog from
     * the recipes. {@code onClose} runs last when the unit closes (a lease is given back); on
     * failure everything given is closed.
     */
    static DedupStorageUnit open(String name, EngineSettings settings, UnitBackend.UnitParts parts) throws IOException {
        List<String> problems = new ArrayList<>();
        CatalogLoad catalogLoad = CatalogLoad.start(parts.recipes());
        try {
            ChunkIndex index;
            try {
                index = parts.containers().recoverIndex(problems);
            } catch (IOException | RuntimeException e) {
                catalogLoad.abandon(); // before the parts close below: nothing may read the unit's recipes after
                throw e;
            }
            RecipeCatalog catalog = catalogLoad.await();
            problems.addAll(catalog.loadProblems());
            for (String p : problems) {
                LOG.warning(() -> "unit " + name + ": " + p);
            }
            return new DedupStorageUnit(name, settings, parts.containers(), index, catalog, problems, parts.onClose());
        } catch (IOException | RuntimeException e) {
            parts.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public BackupLease beginBackup() {
        checkOpen();
        DedupBackupLease lease = new DedupBackupLease(this);
        writeLock.lock();
        try {
            leases.add(lease);
        } finally {
            writeLock.unlock();
        }
        return lease;
    }

    @Override
    public CompletableFuture<Void> sync() {
        try {
            checkOpen();
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        if (containers.reconnectKeepsSpoolOnly()) {
            // Nothing to wait for (the spool already holds what was appended), and queued behind an
            // upload in the syncer it would stall every stream for that upload.
            return CompletableFuture.completedFuture(null);
        }
        return committer.sync(false);
    }

    @Override
    public CompletableFuture<Void> syncUploaded() {
        try {
            checkOpen();
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
        return committer.sync(true);
    }

    @Override
    public boolean syncSpoolOnly() {
        return containers.reconnectKeepsSpoolOnly();
    }

    boolean[] missing(DedupBackupLease lease, Fingerprint[] fingerprints) {
        checkOpen();
        boolean[] out = new boolean[fingerprints.length];
        writeLock.lock();
        try {
            for (int i = 0; i < fingerprints.length; i++) {
                Fingerprint fp = fingerprints[i];
                if (fp == null) {
                    throw new StoreException("fingerprint " + i + " is null");
                }
                if (index.contains(fp)) {
                    lease.pin(fp);
                } else {
                    out[i] = true;
                }
            }
        } finally {
            writeLock.unlock();
        }
        return out;
    }

    void put(DedupBackupLease lease, Fingerprint fp, Codec codec, int rawLength, ByteBuffer payload) {
        checkOpen();
        if (fp == null || codec == null || payload == null) {
            throw new StoreException("put needs a fingerprint, a codec and a payload");
        }
        int max = settings.maxChunkBytes();
        if (rawLength < 0 || rawLength > max) {
            throw new StoreException("chunk raw length " + rawLength + " is outside 0.." + max);
        }
        int length = payload.remaining();
        if (length > max + (max >>> 7) + 1024) {
            throw new StoreException("chunk payload of " + length + " bytes is too large");
        }
        if (pinIfPresent(lease, fp)) {
            return;
        }
        if (settings.verifyOnPut().checks(newChunksOffered.getAndIncrement())) {
            byte[] sampled = new byte[length];
            payload.duplicate().get(sampled);
            ChunkDecoder.decodeAndCheck(fp, codec, rawLength, sampled);
        } else if (codec == Codec.NONE && length != rawLength) {
            throw new StoreException("uncompressed chunk has " + length + " bytes, not " + rawLength);
        }
        // Sealing costs CPU that must not serialize the unit's writers: it is done before the lock.
        ByteBuffer sealed = containers.encodeAhead(fp, codec.id(), rawLength, payload);
        writeLock.lock();
        try {
            checkOpen();
            if (index.contains(fp)) {
                lease.pin(fp);
                return;
            }
            ContainerStore.Placement p;
            try {
                p = sealed != null ? containers.appendEncoded(sealed) : containers.append(fp, codec.id(), rawLength, payload);
            } catch (CapacityExceededException e) {
                throw new StoreException("storage unit " + name + " is full: " + e.getMessage());
            } catch (DiskFullException e) {
                throw new StoreException(e.getMessage());
            } catch (IOException e) {
                throw new StoreException("cannot store chunk " + fp + " in unit " + name + ": " + e.getMessage(), e);
            }
            index.insert(fp, p.container(), p.offset(), containers.format().overhead() + length);
            if (p.container() != lastAppendedContainer) {
                lastAppendedContainer = p.container();
                toRecompress.add(p.container());
            }
            lease.pin(fp);
        } finally {
            writeLock.unlock();
        }
    }

    private boolean pinIfPresent(DedupBackupLease lease, Fingerprint fp) {
        if (!index.contains(fp)) {
            return false;
        }
        writeLock.lock();
        try {
            if (index.contains(fp)) {
                lease.pin(fp);
                return true;
            }
            return false;
        } finally {
            writeLock.unlock();
        }
    }

    CompletableFuture<Void> commit(DedupBackupLease lease, String objectName, Recipe recipe, CommitPolicy policy) {
        RecipeCatalog.Claim claim = null;
        try {
            checkOpen();
            try {
                ObjectName.validate(objectName);
            } catch (IllegalArgumentException e) {
                throw new StoreException(e.getMessage());
            }
            if (recipe == null) {
                throw new StoreException("no recipe for " + objectName);
            }
            try {
                claim = catalog.claim(objectName, recipe, policy.replaceable(), System.currentTimeMillis());
            } catch (IOException e) {
                throw new StoreException("cannot read the committed object '" + objectName + "' in unit " + name + ": " + e.getMessage(), e);
            }
            if (claim.unchanged()) {
                // A commit whose answer was lost, sent again: it is made.
                claim.close();
                return CompletableFuture.completedFuture(null);
            }
            Set<Fingerprint> pins = new HashSet<>();
            long commitId = commitIds.incrementAndGet();
            writeLock.lock();
            try {
                for (ChunkRef ref : recipe.chunks()) {
                    if (ref == null || ref.fingerprint() == null) {
                        throw new StoreException("the recipe of " + objectName + " has an empty chunk reference");
                    }
                    if (ref.length() < 0) {
                        throw new StoreException("the recipe of " + objectName + " has a negative chunk length");
                    }
                    if (!index.contains(ref.fingerprint())) {
                        throw new StoreException("chunk " + ref.fingerprint() + " referenced by " + objectName
                                + " is neither stored nor pinned in unit " + name);
                    }
                    pins.add(ref.fingerprint());
                }
                // Pinned apart from the lease, so that even a lease closed before its commit completes
                // keeps a collection off these chunks until the recipe is on disk.
                commitPins.put(commitId, pins);
            } finally {
                writeLock.unlock();
            }
            CompletableFuture<Void> f = committer.submit(objectName, recipe, policy);
            RecipeCatalog.Claim held = claim;
            f.whenComplete((ok, err) -> {
                commitPins.remove(commitId);
                held.close();
            });
            return f;
        } catch (RuntimeException e) {
            if (claim != null) {
                claim.close();
            }
            return CompletableFuture.failedFuture(e);
        }
    }

    /** A locked commit's containers are kept as long as its lock; under the write lock, so no collection moves a chunk meanwhile. */
    private void retainChunks(Recipe recipe, RetentionLock lock) throws IOException {
        if (!containers.holdsLocks()) {
            return;
        }
        writeLock.lock();
        try {
            Set<Integer> ids = new HashSet<>();
            recipe.chunks().forEach(ref -> Optional.ofNullable(index.lookup(ref.fingerprint())).ifPresent(at -> ids.add(at.container())));
            containers.retain(ids, lock);
        } finally {
            writeLock.unlock();
        }
    }

    void release(DedupBackupLease lease) {
        writeLock.lock();
        try {
            leases.remove(lease);
            lease.pins().clear();
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public Optional<Recipe> recipe(String objectName) {
        checkOpen();
        try {
            return catalog.recipe(objectName);
        } catch (CorruptRecipeException e) {
            throw new StoreException("the recipe of " + objectName + " in unit " + name + " is damaged: " + e.getMessage());
        } catch (IOException e) {
            throw new StoreException("cannot read the recipe of " + objectName + ": " + e, e);
        }
    }

    @Override
    public StoredChunk read(Fingerprint fingerprint) {
        checkOpen();
        ChunkRecord r = readRecord(fingerprint);
        return new StoredChunk(Codec.ofId(r.codecId()), r.rawLength(), r.payload());
    }

    /** The chunk's record, checksum checked; retried when garbage collection moves it meanwhile. */
    ChunkRecord readRecord(Fingerprint fp) {
        ChunkRecord r = records.read(fp);
        if (r == null) {
            checkOpen();
            throw new StoreException("chunk " + fp + " kept moving while being read; try again");
        }
        return r;
    }

    @Override
    public List<ObjectInfo> list(String prefix) {
        checkOpen();
        List<ObjectInfo> out = new ArrayList<>();
        for (RecipeCatalog.Entry e : catalog.list(prefix == null ? "" : prefix)) {
            out.add(new ObjectInfo(e.name(), e.length(), e.committedAtMillis(), e.lock()));
        }
        return out;
    }

    @Override
    public RecipeCatalog.Deleted deleteObject(String objectName, boolean bypassGovernance) {
        checkOpen();
        try {
            return catalog.delete(objectName, bypassGovernance, System.currentTimeMillis());
        } catch (IOException e) {
            throw new StoreException("cannot delete object '" + objectName + "' in unit " + name + ": " + e, e);
        }
    }

    @Override
    public RecipeCatalog.Deleted deleteObjects(String prefix, boolean bypassGovernance) {
        checkOpen();
        try {
            return catalog.deletePrefix(prefix == null ? "" : prefix, bypassGovernance, System.currentTimeMillis());
        } catch (IOException e) {
            throw new StoreException("cannot delete objects under '" + prefix + "' in unit " + name + ": " + e, e);
        }
    }

    @Override
    public GcReport collectGarbage() {
        checkOpen();
        writeLock.lock();
        try {
            // Pins are copied before the recipes are read: a commit unpins only after its recipe is
            // in the catalog, so every chunk is either seen pinned here or seen in a recipe later.
            List<Fingerprint> pins = new ArrayList<>();
            for (DedupBackupLease l : leases) {
                pins.addAll(l.pins());
            }
            for (Set<Fingerprint> p : commitPins.values()) {
                pins.addAll(p);
            }
            return new GarbageCollector(this, pins, keptSinceOpen()).run();
        } catch (IOException e) {
            throw new StoreException("garbage collection of unit " + name + " failed: " + e, e);
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public Recompression recompressNext(int zstdLevel, BooleanSupplier keepGoing) {
        checkOpen();
        BooleanSupplier go = () -> !closed && keepGoing.getAsBoolean();
        int id;
        List<ChunkIndex.Location> locations = new ArrayList<>();
        List<Fingerprint> fingerprints = new ArrayList<>();
        writeLock.lock();
        try {
            Set<Integer> present = new HashSet<>();
            containers.all().forEach(c -> present.add(c.id()));
            toRecompress.retainAll(present);
            if (toRecompress.isEmpty() || !go.getAsBoolean()) {
                if (recompressing.isEmpty()) {
                    saveIndexIfDropped();
                }
                return Recompression.of(toRecompress.isEmpty() ? Recompression.Outcome.NOTHING_PENDING : Recompression.Outcome.PAUSED, 0);
            }
            // The container taking appends is sealed too: with no backup running, it is as full as it gets.
            containers.seal();
            id = toRecompress.stream().filter(c -> !recompressing.contains(c)).findFirst().orElse(0);
            if (id == 0) {
                return Recompression.of(Recompression.Outcome.NOTHING_PENDING, 0); // each one waiting has a caller on it
            }
            recompressing.add(id);
            index.forEach((slot, container, offset, length) -> {
                if (container == id) {
                    fingerprints.add(index.fingerprintAt(slot));
                    locations.add(new ChunkIndex.Location(container, offset, length));
                }
            });
        } finally {
            writeLock.unlock();
        }
        Recompression r = null;
        try {
            r = new Recompressor(this, writeLock, zstdLevel, go).run(id, locations, fingerprints);
            return r;
        } catch (IOException e) {
            throw new StoreException("recompression of container " + id + " in unit " + name + " failed: " + e.getMessage(), e);
        } finally {
            writeLock.lock();
            try {
                recompressing.remove(id);
                if (r != null && r.settled()) {
                    toRecompress.remove(id);
                }
                if (recompressing.isEmpty() && (toRecompress.isEmpty() || r == null || !r.settled())) {
                    saveIndexIfDropped();
                }
            } finally {
                writeLock.unlock();
            }
        }
    }

    @Override
    public int recompressionPending() {
        return toRecompress.size();
    }

    private void saveIndexIfDropped() {
        if (indexDropped && !closed) {
            saveIndexSnapshot();
        }
    }

    /**
     * The containers whose every chunk a collection keeps: those of the unit's open while the
     * reconnect grace lasts. A lease dies with the process that held it, so after a restart the
     * store cannot tell which unreferenced chunks an interrupted backup will reference again.
     */
    private Set<Integer> keptSinceOpen() {
        long left = keepThemUntilNanos - System.nanoTime();
        if (left <= 0 || containersAtOpen.isEmpty()) {
            return Set.of();
        }
        LOG.info(() -> "unit " + name + ": garbage collection keeps every chunk of the " + containersAtOpen.size()
                + " containers it was opened with for " + (left / 1_000_000_000L + 1) + " s more (reconnect grace:"
                + " backups interrupted by the restart may still reconnect)");
        return containersAtOpen;
    }

    /**
     * Called under the write lock by whatever moves records of container {@code from} into
     * container {@code to} within the reconnect grace: the grace follows them, so a backup the
     * restart interrupted still finds its chunks when it reconnects, wherever they were moved.
     */
    void carryGrace(int from, int to) {
        if (containersAtOpen.contains(from) && keepThemUntilNanos - System.nanoTime() > 0) {
            containersAtOpen.add(to);
        }
    }

    @Override
    public VerifyReport verify() {
        checkOpen();
        return new UnitVerifier(this).run();
    }

    @Override
    public UnitStats stats() {
        long chunks = index.size();
        return new UnitStats(catalog.size(), catalog.logicalBytes(), chunks,
                index.recordBytes() - chunks * containers.format().overhead(), containers.count(), index.memoryBytes());
    }

    String unitName() {
        return name;
    }

    /** Group commit counters: batches synced so far, and the commits they carried. */
    long[] commitCounters() {
        return committer.counters();
    }

    EngineSettings settings() {
        return settings;
    }

    ContainerStore containers() {
        return containers;
    }

    ChunkIndex index() {
        return index;
    }

    RecipeCatalog catalog() {
        return catalog;
    }

    List<String> recoveryProblems() {
        return recoveryProblems;
    }

    /** Saves the index after a collection so that a crash does not cost a full rebuild. Called under the write lock. */
    void saveIndexSnapshot() {
        containers.saveIndex(index, name);
        indexDropped = false;
    }

    /**
     * Whether the containers' disk has room for {@code copies} bytes of records copied into new
     * containers (by garbage collection or recompression), their headers, and a margin for the
     * directory entries and fsyncs around them.
     */
    boolean hasRoomForCopies(long copies) throws IOException {
        long headers = Container.HEADER_BYTES * (2 + copies / settings.containerSizeBytes());
        return containers.usableSpace() >= copies + headers + COPY_ROOM_MARGIN;
    }

    /** Called by garbage collection and recompression before they move or delete any record: the saved index would go stale. */
    void dropIndexSnapshot() throws IOException {
        containers.dropIndex();
        indexDropped = true;
    }

    /** After a commit batch: a store whose saved index fell far behind saves it, unless a collection holds the lock. */
    private void saveIndexIfBehind() {
        if (!closed && containers.indexWorthSaving() && writeLock.tryLock()) {
            try {
                if (!closed) {
                    containers.saveIndex(index, name);
                }
            } finally {
                writeLock.unlock();
            }
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreException("storage unit " + name + " is closed");
        }
    }

    /** Finishes queued commits, makes everything durable, saves the index, closes the containers, then runs the backend's close hook. */
    void close() {
        if (closed) {
            return;
        }
        committer.close();
        writeLock.lock();
        try {
            closed = true;
            for (DedupBackupLease l : leases) {
                l.pins().clear();
            }
            leases.clear();
            containers.makeDurable();
            containers.saveIndex(index, name);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "unit " + name + ": could not make the containers durable; the next open rebuilds the index", e);
        } finally {
            writeLock.unlock();
            catalog.close();
            try {
                containers.close();
            } catch (IOException e) {
                LOG.log(Level.WARNING, "unit " + name + ": closing containers", e);
            }
            try {
                onClose.close();
            } catch (IOException e) {
                LOG.log(Level.WARNING, "unit " + name + ": closing", e);
            }
        }
    }
}
