package io.gpdedup.store.s3;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.container.CapacityExceededException;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.DiskSpace;
import io.gpdedup.store.container.RecordBuffer;
import io.gpdedup.store.container.RecordFormat;
import io.gpdedup.store.crypt.UnitEncryption;
import io.gpdedup.store.engine.CommitPolicy;
import io.gpdedup.store.engine.ContainerStore;
import io.gpdedup.store.engine.EngineSettings;
import io.gpdedup.store.index.ChunkIndex;
import io.gpdedup.store.index.IndexSnapshot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * A unit's containers in the bucket (docs/s3.md). Records are appended to a container file in the
 * local spool; a full container is sealed and uploaded in the background, and a commit seals the
 * one being filled and waits until every container not yet in the bucket is there: the container
 * object (Content-MD5 checked), then its index object. Only then is the spool file dropped and the
 * container read from the bucket, through the {@link ReadCache}. One upload carries every commit
 * that waited for it, so concurrent small backups share containers.
 *
 * <p>Recovery reads the index checkpoint and the index objects of the containers it does not
 * cover, never a whole container unless its index object is damaged. A container without an index
 * object is an upload cut short (its commit was never acknowledged) and is deleted; new container
 * ids start {@link #ID_GAP} above the highest found, so an upload of a previous holder still in
 * flight can never be overwritten, nor overwrite ours.
 */
final class BucketContainers implements ContainerStore {
    private static final Logger LOG = Logger.getLogger(BucketContainers.class.getName());
    static final int ID_GAP = 1024;
    /** Sealed containers waiting for their upload before appends wait for them. */
    private static final int MAX_PENDING_UPLOADS = 4;
    /** Containers uploaded since the last index checkpoint before a commit batch saves a new one. */
    static final int CHECKPOINT_EVERY = 64;

    /** One container: in the spool (being filled, sealed, or uploading), or in the bucket. */
    private static final class Slot {
        final int id;
        volatile Container spool; // while the local file exists
        volatile long size;
        volatile long dataStart;
        volatile boolean sealed; // takes no more appends: may be uploaded
        volatile boolean remote; // its object and index object are in the bucket
        CompletableFuture<Void> upload; // guarded by BucketContainers.this
        // What was written, for the upload (null: garbage collection's copies, read back instead).
        // Filled under BucketContainers.this, read by the upload once sealed.
        SpoolTally tally;

        Slot(int id) {
            this.id = id;
        }
    }

    private final String unit;
    private final UnitKeys keys;
    private final Bucket bucket;
    private final ReadCache cache;
    private final UnitLease lease;
    private final ExecutorService uploads;
    private final Path spoolDir;
    private final EngineSettings settings;
    private final DiskSpace space;
    private final ContainerLocks locks;
    private final Map<Integer, Slot> slots = new ConcurrentHashMap<>();
    private final AtomicLong totalBytes = new AtomicLong();
    private final AtomicInteger uploadedSinceCheckpoint = new AtomicInteger();
    private final UnitEncryption encryption;
    private final IndexObjects indexFiles;
    private final RecordBuffer encoder; // guarded by this
    private Container active; // guarded by this
    private int nextId; // guarded by this

    BucketContainers(String unit, Bucket bucket, ReadCache cache, UnitLease lease, ExecutorService uploads, Path spoolDir,
            EngineSettings settings, DiskSpace space, CommitPolicy locking, UnitEncryption encryption) throws IOException {
        // locking: the unit's config's lock; encryption: how the unit's objects (and the spool's files) are written
        this.unit = unit;
        this.keys = new UnitKeys(unit);
        this.bucket = bucket;
        this.cache = cache;
        this.lease = lease;
        this.uploads = uploads;
        this.spoolDir = spoolDir;
        this.settings = settings;
        this.space = space;
        this.locks = new ContainerLocks(unit, bucket, locking, uploads);
        this.encryption = encryption;
        this.encoder = new RecordBuffer(encryption.records());
        this.indexFiles = new IndexObjects(unit, bucket, spoolDir, encryption);
        CacheDirs.empty(spoolDir);
    }

    @Override
    public ChunkIndex recoverIndex(List<String> problems) throws IOException {
        long t0 = System.nanoTime();
        // The listing runs while the checkpoint downloads and is parsed: at ten million chunks each takes seconds.
        FutureTask<List<Bucket.Listed>> listing = new FutureTask<>(() -> SplitListing.list(bucket, keys.containers(), UnitKeys.CONTAINER_KEY_CHARS));
        Thread lister = new Thread(listing, "gpdedup-s3-list");
        lister.setDaemon(true);
        lister.start();
        IndexSnapshot.Loaded snap;
        List<Bucket.Listed> listed;
        try {
            snap = indexFiles.readCheckpoint();
            listed = awaitListing(listing);
        } finally {
            listing.cancel(true);
        }
        long checkpointRead = System.nanoTime();
        Map<Integer, Long> containerSizes = new TreeMap<>();
        Map<Integer, Long> indexObjects = new TreeMap<>();
        int maxId = 0;
        for (Bucket.Listed o : listed) {
            String name = o.key().substring(keys.containers().length());
            int id = UnitKeys.idOf(name);
            if (id <= 0) {
                continue;
            }
            maxId = Math.max(maxId, id);
            (name.endsWith(UnitKeys.INDEX_SUFFIX) ? indexObjects : containerSizes).put(id, o.size());
        }
        List<String> orphans = new ArrayList<>();
        for (int id : containerSizes.keySet()) {
            if (!indexObjects.containsKey(id)) {
                orphans.add(keys.container(id)); // its upload was cut short: no commit waited on it successfully
            }
        }
        for (int id : indexObjects.keySet()) {
            if (!containerSizes.containsKey(id)) {
                orphans.add(keys.containerIndex(id)); // its container's deletion was cut short
            }
        }
        if (!orphans.isEmpty()) {
            LOG.info(() -> "unit " + unit + ": deleting " + orphans.size() + " objects of uploads or deletions cut short");
            lease.checkWritable();
            bucket.deleteAll(orphans); // what the bucket still holds under retention stays, for the next start
        }
        if (snap != null && !indexFiles.stillWhole(snap, containerSizes, indexObjects)) {
            snap = null;
        }
        ChunkIndex index = snap != null ? snap.index() : new ChunkIndex(expectedChunks(containerSizes, indexObjects));
        List<Integer> uncovered = new ArrayList<>();
        for (Map.Entry<Integer, Long> c : containerSizes.entrySet()) {
            if (indexObjects.containsKey(c.getKey()) && (snap == null || !snap.covered().containsKey(c.getKey()))) {
                uncovered.add(c.getKey());
            }
        }
        Map<Integer, Long> read = indexFiles.fetch(uncovered, containerSizes, problems, ci -> {
            for (ContainerIndexFile.Entry e : ci.entries()) {
                index.insert(e.fingerprint(), ci.container(), e.offset(), e.length());
            }
        });
        long total = 0;
        for (Map.Entry<Integer, Long> c : containerSizes.entrySet()) {
            if (!indexObjects.containsKey(c.getKey())) {
                continue;
            }
            Slot s = new Slot(c.getKey());
            s.size = c.getValue();
            s.dataStart = read.getOrDefault(c.getKey(), (long) Container.HEADER_BYTES);
            s.remote = true;
            slots.put(s.id, s);
            total += s.size;
        }
        totalBytes.set(total);
        synchronized (this) {
            nextId = maxId + ID_GAP;
        }
        int fromCheckpoint = snap == null ? 0 : snap.covered().size();
        long done = System.nanoTime();
        LOG.info(() -> "unit " + unit + ": " + index.size() + " chunks in " + slots.size() + " containers ("
                + fromCheckpoint + " from the index checkpoint, " + read.size() + " from index objects; checkpoint and listing "
                + millis(t0, checkpointRead) + " ms, index objects " + millis(checkpointRead, done) + " ms)");
        return index;
    }

    /**
     * About how many chunks the index objects hold, from their listed lengths, bounded by what the
     * containers could hold (a record holds at least one byte): a table sized so once is not
     * grown and copied over and over while ten million entries go in.
     */
    private static long expectedChunks(Map<Integer, Long> containerSizes, Map<Integer, Long> indexObjects) {
        long entries = 0;
        long records = 0;
        for (Map.Entry<Integer, Long> e : indexObjects.entrySet()) {
            Long size = containerSizes.get(e.getKey());
            if (size != null) {
                entries += ContainerIndexFile.entriesAtMost(e.getValue());
                records += size / (ChunkRecord.OVERHEAD + 1);
            }
        }
        return Math.min(Math.min(entries, records), Integer.MAX_VALUE / 8);
    }

    private static List<Bucket.Listed> awaitListing(FutureTask<List<Bucket.Listed>> listing) throws IOException {
        return Futures.await(listing, Futures::asIOException, e -> new IOException("interrupted while listing containers", e));
    }

    private static long millis(long from, long to) {
        return (to - from) / 1_000_000;
    }

    @Override
    public synchronized Placement append(ChunkRecord record) throws IOException {
        ByteBuffer encoded = encoder.encode(record);
        int length = encoded.remaining();
        Container c = active;
        boolean roll = c == null || (c.size() + length > settings.containerSizeBytes() && c.size() > c.dataStart());
        long growth = length + (roll ? Container.HEADER_BYTES : 0);
        long capacity = settings.capacityBytes();
        if (capacity > 0 && totalBytes.get() + growth > capacity) {
            throw new CapacityExceededException("needs " + growth + " more bytes, " + totalBytes.get() + " of " + capacity + " used");
        }
        if (roll) {
            sealActive();
            awaitUploadRoom();
        }
        space.claim(growth);
        if (roll) {
            c = newSpoolContainer();
            slots.get(c.id()).tally = new SpoolTally(c.read(0, Math.toIntExact(c.size())));
            active = c;
        }
        // Under this object's lock, so that a commit's seal never starts an upload while a record is half written.
        long offset = c.append(encoded);
        Slot s = slots.get(c.id());
        s.tally.add(encoded, record.fingerprint(), offset, length);
        s.size = c.size();
        totalBytes.addAndGet(length);
        return new Placement(c.id(), offset);
    }

    /** Back-pressure: appends wait while too many sealed containers wait for their upload; a failing upload fails them. */
    private void awaitUploadRoom() throws IOException {
        while (true) {
            List<Slot> waiting = new ArrayList<>();
            for (Slot s : slots.values()) {
                if (!s.remote && s.spool != null && s.upload != null) {
                    waiting.add(s);
                }
            }
            if (waiting.size() < MAX_PENDING_UPLOADS) {
                return;
            }
            waiting.sort(Comparator.comparingInt(s -> s.id));
            Slot oldest = waiting.get(0);
            CompletableFuture<Void> f = oldest.upload;
            Futures.await(f, failed -> {
                oldest.upload = null; // the next commit tries it again
                return Futures.asIOException(failed);
            }, e -> new IOException("interrupted while waiting for an upload", e));
        }
    }

    private Container newSpoolContainer() throws IOException {
        Container c = Container.create(spoolDir, nextId++);
        Slot s = new Slot(c.id());
        s.spool = c;
        s.size = c.size();
        s.dataStart = c.dataStart();
        slots.put(s.id, s);
        totalBytes.addAndGet(c.size());
        return c;
    }

    /** Seals the container being filled and starts its upload. Caller holds this. */
    private void sealActive() {
        if (active != null) {
            Slot s = slots.get(active.id());
            active = null;
            s.sealed = true;
            startUpload(s);
        }
    }

    /** Caller holds this; the slot is sealed. */
    private CompletableFuture<Void> startUpload(Slot s) {
        if (s.upload == null || s.upload.isCompletedExceptionally()) {
            s.upload = CompletableFuture.runAsync(() -> upload(s), uploads);
        }
        return s.upload;
    }

    /** Puts the container, then its index object, then reads it from the bucket from now on. */
    private void upload(Slot s) {
        try {
            lease.checkWritable();
            Container c = s.spool;
            SpoolTally tally = s.tally != null ? s.tally : SpoolTally.readBack(c, encryption.records());
            // The server checks the bytes it gets against the MD5 of the bytes appended: a spool
            // file that changed on disk since is refused there, not stored.
            // Copies (no tally) come from containers the bucket no longer holds: so need they not be held.
            RetentionLock lock = s.tally != null ? locks.forUpload() : RetentionLock.NONE;
            bucket.putFile(keys.container(s.id), c.path(), tally.md5(), lock);
            bucket.put(keys.containerIndex(s.id), indexFiles.encode(s.id, c.dataStart(), c.size(), tally.entries()), lock);
            locks.uploaded(s.id, lock);
            s.size = c.size();
            s.remote = true;
            s.tally = null; // its entries are in the index object now
            uploadedSinceCheckpoint.incrementAndGet();
            dropSpoolFile(s);
        } catch (IOException e) {
            throw new CompletionException(e);
        }
    }

    /** Readers of the spool file that lose it to this read the bucket instead (the slot is remote first). */
    private static void dropSpoolFile(Slot s) {
        Container c = s.spool;
        s.spool = null;
        if (c != null) {
            try {
                c.close();
                Files.deleteIfExists(c.path());
            } catch (IOException e) {
                LOG.fine(() -> "cannot delete spool file " + c.path() + ": " + e.getMessage());
            }
        }
    }

    @Override
    public RecordFormat format() {
        return encryption.records();
    }

    @Override
    public byte[] read(int id, long offset, int length) throws IOException {
        Slot s = slots.get(id);
        if (s == null) {
            throw new GoneException(id);
        }
        Container c = s.spool;
        if (c != null) {
            try {
                return c.read(offset, length);
            } catch (ClosedChannelException e) {
                if (Thread.currentThread().isInterrupted()) {
                    throw e;
                }
                if (!s.remote) {
                    throw new GoneException(id); // removed unuploaded (garbage collection's abandoned copies)
                }
            }
        }
        if (!s.remote) {
            throw new GoneException(id);
        }
        try {
            return cache.read(unit, id, new ReadCache.Source(bucket, keys.container(id), s.size), offset, length);
        } catch (IOException e) {
            if (slots.get(id) != s) {
                throw new GoneException(id); // removed by garbage collection while being read: the index points at the copy
            }
            throw e;
        }
    }

    @Override
    public void makeDurable() throws IOException {
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        synchronized (this) {
            sealActive();
            for (Slot s : slots.values()) {
                // Not garbage collection's copies while it still fills them: the index points at them only once they are uploaded.
                if (s.sealed && !s.remote && s.spool != null) {
                    waits.add(startUpload(s));
                }
            }
        }
        awaitAll(waits);
    }

    /** Waits for every upload, then throws the first failure. */
    private static void awaitAll(List<CompletableFuture<Void>> uploads) throws IOException {
        Futures.awaitAll(uploads, Futures::asIOException, e -> new IOException("interrupted while waiting for uploads", e));
    }

    /**
     * Nothing to do: the spool holds the records for a client that reconnects to this process. A
     * restarted store starts from the bucket alone, so only uploads outlive it, and uploading here
     * would seal a container per batch the client confirms: a PUT each, and small ranged GETs on
     * every restore. A backup cut off by a restart before its container went up fails with one line.
     */
    @Override
    public void keepForReconnect() {
    }

    @Override
    public boolean reconnectKeepsSpoolOnly() {
        return true;
    }

    @Override
    public synchronized void seal() {
        sealActive();
    }

    @Override
    public List<Info> all() {
        List<Info> out = new ArrayList<>();
        for (Slot s : slots.values()) {
            out.add(new Info(s.id, s.size, s.dataStart));
        }
        out.sort(Comparator.comparingInt(Info::id));
        return out;
    }

    @Override
    public int count() {
        return slots.size();
    }

    @Override
    public long totalBytes() {
        return totalBytes.get();
    }

    @Override
    public String headerProblem(int id) throws IOException {
        return Container.headerProblemOf(read(id, 0, Container.HEADER_BYTES), id);
    }

    @Override
    public synchronized Container createForCopies() throws IOException {
        return newSpoolContainer();
    }

    @Override
    public void syncCopies(List<Container> written) throws IOException {
        List<CompletableFuture<Void>> waits = new ArrayList<>();
        synchronized (this) {
            for (Container c : written) {
                Slot s = slots.get(c.id());
                totalBytes.addAndGet(c.size() - s.size);
                s.size = c.size();
                s.sealed = true;
                waits.add(startUpload(s));
            }
        }
        awaitAll(waits);
    }

    /** Index objects first ({@link ContainerLocks#delete}); what the bucket still holds under retention stays listed, for later. */
    @Override
    public List<Integer> remove(List<Integer> ids) throws IOException {
        if (ids.isEmpty()) {
            return List.of();
        }
        lease.checkWritable();
        List<Slot> doomed = new ArrayList<>();
        for (int id : ids) {
            Slot s = slots.get(id);
            if (s == null) {
                continue;
            }
            CompletableFuture<Void> f;
            synchronized (this) {
                f = s.upload;
                if (active != null && active.id() == id) {
                    active = null;
                }
            }
            if (f != null) {
                try {
                    f.join(); // an upload in flight must land before its deletion, not after
                } catch (CompletionException e) {
                    // Deleted below either way.
                }
            }
            doomed.add(s);
        }
        List<Integer> doomedIds = new ArrayList<>();
        for (Slot s : doomed) {
            // Gone for readers first: one that fails on a deleted object then looks its chunk up again.
            slots.remove(s.id);
            totalBytes.addAndGet(-s.size);
            doomedIds.add(s.id);
        }
        List<Integer> kept = locks.delete(doomedIds);
        for (Slot s : doomed) {
            if (kept.contains(s.id)) {
                slots.put(s.id, s); // still readable where it is
                totalBytes.addAndGet(s.size);
            } else {
                dropSpoolFile(s);
                cache.drop(unit, s.id);
            }
        }
        return kept;
    }

    @Override
    public boolean holdsLocks() {
        return true;
    }

    @Override
    public void retain(Set<Integer> ids, RetentionLock lock) throws IOException {
        lease.checkWritable();
        locks.extend(ids.stream().filter(this::inBucket).toList(), lock); // the commit waited for their uploads
    }

    @Override
    public boolean retainedAt(int id, long nowMillis) throws IOException {
        return inBucket(id) && locks.heldAt(id, nowMillis);
    }

    private boolean inBucket(int id) {
        Slot s = slots.get(id);
        return s != null && s.remote;
    }

    @Override
    public long usableSpace() throws IOException {
        return space.usable();
    }

    /** Uploads the checkpoint of what is in the bucket (entries of spooled containers are left out). */
    @Override
    public void saveIndex(ChunkIndex index, String unitName) {
        Map<Integer, Long> covered = new TreeMap<>();
        for (Slot s : slots.values()) {
            if (s.remote) {
                covered.put(s.id, s.size);
            }
        }
        try {
            lease.checkWritable();
            int before = uploadedSinceCheckpoint.get();
            indexFiles.saveCheckpoint(index, covered);
            uploadedSinceCheckpoint.addAndGet(-before);
        } catch (IOException e) {
            LOG.warning(() -> "unit " + unitName + ": could not save the index checkpoint (" + e.getMessage()
                    + "); the next start reads more index objects");
        }
    }

    @Override
    public void dropIndex() throws IOException {
        lease.checkWritable();
        bucket.delete(keys.indexCheckpoint());
    }

    @Override
    public boolean indexWorthSaving() {
        return uploadedSinceCheckpoint.get() >= CHECKPOINT_EVERY;
    }

    @Override
    public void close() throws IOException {
        for (Slot s : slots.values()) {
            CompletableFuture<Void> f;
            synchronized (this) {
                f = s.upload;
            }
            if (f != null && !f.isDone()) {
                try {
                    f.join();
                } catch (CompletionException e) {
                    // Its commit (if any) failed already; the spool file goes below.
                }
            }
            dropSpoolFile(s);
        }
    }
}
