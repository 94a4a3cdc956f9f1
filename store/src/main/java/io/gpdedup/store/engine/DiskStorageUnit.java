package io.gpdedup.store.engine;

import io.gpdedup.store.Fingerprint;
import io.gpdedup.store.container.CapacityExceededException;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.ContainerScanner;
import io.gpdedup.store.container.ContainerSet;
import io.gpdedup.store.container.CorruptRecordException;
import io.gpdedup.store.container.DiskFullException;
import io.gpdedup.store.container.DiskSpace;
import io.gpdedup.store.container.FileSync;
import io.gpdedup.store.index.ChunkIndex;
import io.gpdedup.store.index.IndexSnapshot;
import io.gpdedup.store.recipe.CorruptRecipeException;
import io.gpdedup.store.recipe.ObjectName;
import io.gpdedup.store.recipe.RecipeCatalog;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * One storage unit on disk: its containers, index and recipe catalog (docs/format.md).
 *
 * <p>Locking: the write lock serializes appends, pins and garbage collection, so a collection
 * sees a stable index and every pin; a collection holds it for its whole run, which blocks this
 * unit's writers (missing, put, commit) meanwhile. Reads never take it: a read that races a
 * collection's move of its chunk looks the chunk up again. Commits are made durable by the
 * {@link GroupCommitter}, which takes no unit lock.
 */
final class DiskStorageUnit implements StorageUnit {
    private static final Logger LOG = Logger.getLogger(DiskStorageUnit.class.getName());
    private static final int READ_ATTEMPTS = 8;

    private final String name;
    private final Path dir;
    private final EngineSettings settings;
    private final ContainerSet containers;
    private final ChunkIndex index;
    private final RecipeCatalog catalog;
    private final GroupCommitter committer;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Set<DiskBackupLease> leases = new HashSet<>(); // guarded by writeLock
    /** Chunks of commits between validation and durability, by commit; added under writeLock, removed without it. */
    private final Map<Long, Set<Fingerprint>> commitPins = new ConcurrentHashMap<>();
    private final AtomicLong commitIds = new AtomicLong();
    private final AtomicLong newChunksOffered = new AtomicLong();
    private final List<String> recoveryProblems = new CopyOnWriteArrayList<>();
    /** The containers this unit was opened with, and until when collection keeps their chunks (reconnect grace). */
    private final Set<Integer> containersAtOpen;
    private final long keepThemUntilNanos;
    private volatile boolean closed;

    private DiskStorageUnit(String name, Path dir, EngineSettings settings, ContainerSet containers, ChunkIndex index,
                            RecipeCatalog catalog, List<String> problems) {
        this.name = name;
        this.dir = dir;
        this.settings = settings;
        this.containers = containers;
        this.index = index;
        this.catalog = catalog;
        this.recoveryProblems.addAll(problems);
        this.committer = new GroupCommitter(name, containers, catalog);
        this.containersAtOpen = new HashSet<>();
        containers.all().forEach(c -> containersAtOpen.add(c.id()));
        this.keepThemUntilNanos = System.nanoTime() + settings.reconnectGrace().toNanos();
    }

    /**
     * Opens (creating) a unit and recovers it: temp files go, torn container tails are cut, the
     * index comes from its snapshot plus a scan of what the snapshot does not cover, or from a
     * full scan when the snapshot is missing or stale.
     */
    static DiskStorageUnit open(String name, Path dir, EngineSettings settings, DiskSpace space) throws IOException {
        Files.createDirectories(dir);
        List<String> problems = new ArrayList<>();
        Files.deleteIfExists(snapshotPath(dir).resolveSibling(snapshotPath(dir).getFileName() + ".tmp"));
        ContainerSet containers = ContainerSet.open(dir.resolve("containers"), settings.containerSizeBytes(),
                settings.capacityBytes(), space);
        try {
            for (Container c : containers.all()) {
                if (c.problemAtOpen() != null) {
                    // Not a recovery problem: verify reads every header again and reports it there.
                    LOG.warning(() -> "unit " + name + ": container " + Container.fileName(c.id()) + ": " + c.problemAtOpen());
                }
            }
            ChunkIndex index = loadIndex(name, dir, containers, problems);
            containers.recount();
            List<Container> all = containers.all();
            if (!all.isEmpty()) {
                containers.resume(all.get(all.size() - 1));
            }
            RecipeCatalog catalog = RecipeCatalog.open(dir.resolve("recipes"));
            problems.addAll(catalog.loadProblems());
            for (String p : problems) {
                LOG.warning(() -> "unit " + name + ": " + p);
            }
            return new DiskStorageUnit(name, dir, settings, containers, index, catalog, problems);
        } catch (IOException | RuntimeException e) {
            containers.close();
            throw e;
        }
    }

    private static Path snapshotPath(Path unitDir) {
        return unitDir.resolve("index.snap");
    }

    private static ChunkIndex loadIndex(String name, Path dir, ContainerSet containers, List<String> problems) throws IOException {
        IndexSnapshot.Loaded snap = IndexSnapshot.read(snapshotPath(dir));
        if (snap != null) {
            for (Map.Entry<Integer, Long> e : snap.covered().entrySet()) {
                Container c = containers.get(e.getKey());
                if (c == null || c.size() < e.getValue()) {
                    LOG.info(() -> "unit " + name + ": index snapshot is stale, rebuilding the index from the containers");
                    snap = null;
                    break;
                }
            }
        }
        ChunkIndex index = snap != null ? snap.index() : new ChunkIndex();
        for (Container c : containers.all()) {
            long from = c.dataStart();
            if (snap != null) {
                from = snap.covered().getOrDefault(c.id(), c.dataStart());
            }
            if (from >= c.size()) {
                continue;
            }
            int id = c.id();
            ContainerScanner.ScanResult r = ContainerScanner.scan(c, from, (fp, offset, length) -> index.insert(fp, id, offset, length));
            if (r.damagedBytes() > 0) {
                problems.add("container " + id + ": " + r.damagedBytes() + " damaged bytes skipped");
            }
            if (r.truncatedBytes() > 0) {
                LOG.info(() -> "unit " + name + ": cut a torn tail of " + r.truncatedBytes() + " bytes from container " + id);
            }
        }
        return index;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public BackupLease beginBackup() {
        checkOpen();
        DiskBackupLease lease = new DiskBackupLease(this);
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
        return committer.sync();
    }

    boolean[] missing(DiskBackupLease lease, Fingerprint[] fingerprints) {
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

    void put(DiskBackupLease lease, Fingerprint fp, Codec codec, int rawLength, byte[] payload) {
        checkOpen();
        if (fp == null || codec == null || payload == null) {
            throw new StoreException("put needs a fingerprint, a codec and a payload");
        }
        int max = settings.maxChunkBytes();
        if (rawLength < 0 || rawLength > max) {
            throw new StoreException("chunk raw length " + rawLength + " is outside 0.." + max);
        }
        if (payload.length > max + (max >>> 7) + 1024) {
            throw new StoreException("chunk payload of " + payload.length + " bytes is too large");
        }
        if (pinIfPresent(lease, fp)) {
            return;
        }
        if (settings.verifyOnPut().checks(newChunksOffered.getAndIncrement())) {
            ChunkDecoder.decodeAndCheck(fp, codec, rawLength, payload);
        } else if (codec == Codec.NONE && payload.length != rawLength) {
            throw new StoreException("uncompressed chunk has " + payload.length + " bytes, not " + rawLength);
        }
        byte[] record = new ChunkRecord(fp, codec.id(), rawLength, payload).encode();
        writeLock.lock();
        try {
            checkOpen();
            if (index.contains(fp)) {
                lease.pin(fp);
                return;
            }
            ContainerSet.Placement p;
            try {
                p = containers.append(record);
            } catch (CapacityExceededException e) {
                throw new StoreException("storage unit " + name + " is full: " + e.getMessage());
            } catch (DiskFullException e) {
                throw new StoreException(e.getMessage());
            } catch (IOException e) {
                throw new StoreException("cannot store chunk " + fp + " in unit " + name + ": " + e.getMessage(), e);
            }
            index.insert(fp, p.container(), p.offset(), record.length);
            lease.pin(fp);
        } finally {
            writeLock.unlock();
        }
    }

    private boolean pinIfPresent(DiskBackupLease lease, Fingerprint fp) {
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

    CompletableFuture<Void> commit(DiskBackupLease lease, String objectName, Recipe recipe) {
        try {
            checkOpen();
            try {
                ObjectName.validate(objectName);
            } catch (IllegalArgumentException e) {
                throw new StoreException(e.getMessage());
            }
            if (recipe == null || recipe.streamSha256().length != Fingerprint.LENGTH) {
                throw new StoreException("the recipe of " + objectName + " needs a " + Fingerprint.LENGTH + "-byte stream SHA-256");
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
            CompletableFuture<Void> f = committer.submit(objectName, recipe);
            f.whenComplete((ok, err) -> commitPins.remove(commitId));
            return f;
        } catch (StoreException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    void release(DiskBackupLease lease) {
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
        for (int attempt = 0; attempt < READ_ATTEMPTS; attempt++) {
            ChunkIndex.Location loc = index.lookup(fp);
            if (loc == null) {
                throw new StoreException("chunk " + fp + " is not stored in unit " + name);
            }
            Container c = containers.get(loc.container());
            if (c == null) {
                continue;
            }
            byte[] bytes;
            try {
                bytes = c.read(loc.offset(), loc.length());
            } catch (ClosedChannelException e) {
                if (Thread.currentThread().isInterrupted()) {
                    throw new StoreException("interrupted while reading chunk " + fp, e);
                }
                continue;
            } catch (IOException e) {
                throw new StoreException("cannot read chunk " + fp + " from container " + loc.container() + ": " + e, e);
            }
            ChunkRecord r;
            try {
                r = ChunkRecord.decode(bytes);
            } catch (CorruptRecordException e) {
                throw new StoreException("chunk " + fp + " in container " + loc.container() + " at offset " + loc.offset()
                        + " is damaged: " + e.getMessage());
            }
            if (!r.fingerprint().equals(fp)) {
                throw new StoreException("chunk " + fp + " in container " + loc.container() + " at offset " + loc.offset()
                        + " is damaged: the record holds " + r.fingerprint());
            }
            return r;
        }
        checkOpen();
        throw new StoreException("chunk " + fp + " kept moving while being read; try again");
    }

    @Override
    public List<ObjectInfo> list(String prefix) {
        checkOpen();
        List<ObjectInfo> out = new ArrayList<>();
        for (RecipeCatalog.Entry e : catalog.list(prefix == null ? "" : prefix)) {
            out.add(new ObjectInfo(e.name(), e.length(), e.committedAtMillis()));
        }
        return out;
    }

    @Override
    public boolean deleteObject(String objectName) {
        checkOpen();
        try {
            return catalog.delete(objectName);
        } catch (IOException e) {
            throw new StoreException("cannot delete object '" + objectName + "' in unit " + name + ": " + e, e);
        }
    }

    @Override
    public int deleteObjects(String prefix) {
        checkOpen();
        try {
            return catalog.deletePrefix(prefix == null ? "" : prefix);
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
            for (DiskBackupLease l : leases) {
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

    @Override
    public VerifyReport verify() {
        checkOpen();
        return new UnitVerifier(this).run();
    }

    @Override
    public UnitStats stats() {
        long chunks = index.size();
        return new UnitStats(catalog.size(), catalog.logicalBytes(), chunks,
                index.recordBytes() - chunks * ChunkRecord.OVERHEAD, containers.count(), index.memoryBytes());
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

    ContainerSet containers() {
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

    /**
     * Saves the index after a collection so that a crash does not cost a full rescan. Called
     * under the write lock (no appends), after fsyncing what the snapshot covers; the dirty marks
     * stay for the syncer, whose batches must not lose their fsyncs to this one.
     */
    void saveIndexSnapshot() throws IOException {
        ContainerSet.Dirty dirty = containers.peekDirty();
        containers.sync(dirty);
        writeIndexSnapshot();
    }

    /**
     * The snapshot is only a cache: it is not written when it would eat into the disk reserve,
     * and failing to write it (a full disk) fails nothing; the next open then scans.
     */
    private void writeIndexSnapshot() {
        Path file = snapshotPath(dir);
        try {
            if (!containers.space().fitsAboveReserve(IndexSnapshot.sizeOf(index, containers.count()))) {
                LOG.warning(() -> "unit " + name + ": no index snapshot written: it would eat into the disk reserve; the next open scans");
                return;
            }
            IndexSnapshot.write(file, index, containers.lengths());
        } catch (IOException e) {
            LOG.warning(() -> "unit " + name + ": could not write the index snapshot (" + e.getMessage() + "); the next open scans");
            try {
                Files.deleteIfExists(file.resolveSibling(file.getFileName() + ".tmp"));
            } catch (IOException ignored) {
                // Deleted by the next open.
            }
        }
    }

    /** Called by garbage collection before it moves or deletes any record: the snapshot would go stale. */
    void dropIndexSnapshot() throws IOException {
        if (Files.deleteIfExists(snapshotPath(dir))) {
            FileSync.syncDirectory(dir);
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreException("storage unit " + name + " is closed");
        }
    }

    /** Finishes queued commits, fsyncs, saves the index snapshot and closes the containers. */
    void close() {
        if (closed) {
            return;
        }
        committer.close();
        writeLock.lock();
        try {
            closed = true;
            for (DiskBackupLease l : leases) {
                l.pins().clear();
            }
            leases.clear();
            ContainerSet.Dirty dirty = containers.takeDirty();
            containers.sync(dirty);
            writeIndexSnapshot();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "unit " + name + ": could not fsync the containers; the next open rescans", e);
        } finally {
            writeLock.unlock();
            try {
                containers.close();
            } catch (IOException e) {
                LOG.log(Level.WARNING, "unit " + name + ": closing containers", e);
            }
        }
    }
}
