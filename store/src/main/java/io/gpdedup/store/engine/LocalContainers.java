package io.gpdedup.store.engine;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.ContainerScanner;
import io.gpdedup.store.container.ContainerSet;
import io.gpdedup.store.container.DiskSpace;
import io.gpdedup.store.container.FileSync;
import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.container.RecordBuffer;
import io.gpdedup.store.container.RecordFormat;
import io.gpdedup.store.crypt.BlobSeal;
import io.gpdedup.store.crypt.UnitEncryption;
import io.gpdedup.store.index.ChunkIndex;
import io.gpdedup.store.index.IndexSnapshot;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Logger;

/**
 * A unit's containers as files in {@code <unit>/containers/}, made durable by fsync, with the
 * index snapshot {@code <unit>/index.snap} (docs/format.md sections 2 and 4).
 */
final class LocalContainers implements ContainerStore {
    private static final Logger LOG = Logger.getLogger(LocalContainers.class.getName());

    private final String unit;
    private final Path unitDir;
    private final ContainerSet set;
    private final UnitEncryption encryption;
    private final RecordBuffer encoder;
    /** Records sealed by {@link #encodeAhead}, one buffer per writer thread. */
    private final ThreadLocal<RecordBuffer> ahead;

    private LocalContainers(String unit, Path unitDir, ContainerSet set, UnitEncryption encryption) {
        this.unit = unit;
        this.unitDir = unitDir;
        this.set = set;
        this.encryption = encryption;
        this.encoder = new RecordBuffer(encryption.records());
        this.ahead = ThreadLocal.withInitial(() -> new RecordBuffer(encryption.records()));
    }

    /**
     * Opens (creating) the unit directory's containers, whose records and index snapshot are
     * written as {@code encryption} says; temp files and torn creations go.
     */
    static LocalContainers open(String unit, Path unitDir, EngineSettings settings, DiskSpace space, UnitEncryption encryption)
            throws IOException {
        OwnerOnly.createDirectories(unitDir);
        Files.deleteIfExists(snapshotTemp(unitDir));
        ContainerSet set = ContainerSet.open(unitDir.resolve("containers"), settings.containerSizeBytes(), settings.capacityBytes(), space);
        for (Container c : set.all()) {
            if (c.problemAtOpen() != null) {
                // Not a recovery problem: verify reads every header again and reports it there.
                LOG.warning(() -> "unit " + unit + ": container " + Container.fileName(c.id()) + ": " + c.problemAtOpen());
            }
        }
        return new LocalContainers(unit, unitDir, set, encryption);
    }

    private static Path snapshotPath(Path unitDir) {
        return unitDir.resolve("index.snap");
    }

    private static Path snapshotTemp(Path unitDir) {
        return unitDir.resolve("index.snap.tmp");
    }

    /**
     * The index from its snapshot plus a scan of what the snapshot does not cover, or from a full
     * scan when the snapshot is missing or stale; torn container tails are cut on the way.
     */
    @Override
    public ChunkIndex recoverIndex(List<String> problems) throws IOException {
        IndexSnapshot.Loaded snap = IndexSnapshot.read(snapshotPath(unitDir), encryption.blobs());
        if (snap != null) {
            for (Map.Entry<Integer, Long> e : snap.covered().entrySet()) {
                Container c = set.get(e.getKey());
                if (c == null || c.size() < e.getValue()) {
                    LOG.info(() -> "unit " + unit + ": index snapshot is stale, rebuilding the index from the containers");
                    snap = null;
                    break;
                }
            }
        }
        ChunkIndex index = snap != null ? snap.index() : new ChunkIndex();
        for (Container c : set.all()) {
            long from = c.dataStart();
            if (snap != null) {
                from = snap.covered().getOrDefault(c.id(), c.dataStart());
            }
            if (from >= c.size()) {
                continue;
            }
            int id = c.id();
            ContainerScanner.ScanResult r = ContainerScanner.scan(c, from, encryption.records(),
                    (fp, offset, length) -> index.insert(fp, id, offset, length));
            if (r.damagedBytes() > 0) {
                problems.add("container " + id + ": " + r.damagedBytes() + " damaged bytes skipped");
            }
            if (r.truncatedBytes() > 0) {
                LOG.info(() -> "unit " + unit + ": cut a torn tail of " + r.truncatedBytes() + " bytes from container " + id);
            }
        }
        set.recount();
        List<Container> all = set.all();
        if (!all.isEmpty()) {
            set.resume(all.get(all.size() - 1));
        }
        return index;
    }

    /** Sealed records only: a plaintext record costs no more than its copy, which {@link #append} makes anyway. */
    @Override
    public ByteBuffer encodeAhead(Fingerprint fingerprint, int codecId, int rawLength, ByteBuffer payload) {
        return encryption.encrypted() ? ahead.get().encode(fingerprint, codecId, rawLength, payload) : null;
    }

    @Override
    public synchronized Placement appendEncoded(ByteBuffer record) throws IOException {
        ContainerSet.Placement p = set.append(record);
        return new Placement(p.container(), p.offset());
    }

    @Override
    public RecordFormat format() {
        return encryption.records();
    }

    /** Appends are serialized by the unit's write lock. */
    @Override
    public Placement append(ChunkRecord record) throws IOException {
        return append(record.fingerprint(), record.codecId(), record.rawLength(), ByteBuffer.wrap(record.payload()));
    }

    @Override
    public synchronized Placement append(Fingerprint fingerprint, int codecId, int rawLength, ByteBuffer payload) throws IOException {
        ContainerSet.Placement p = set.append(encoder.encode(fingerprint, codecId, rawLength, payload));
        return new Placement(p.container(), p.offset());
    }

    @Override
    public byte[] read(int id, long offset, int length) throws IOException {
        byte[] out = new byte[length];
        read(id, offset, ByteBuffer.wrap(out));
        return out;
    }

    @Override
    public void read(int id, long offset, ByteBuffer into) throws IOException {
        Container c = set.get(id);
        if (c == null) {
            throw new GoneException(id);
        }
        try {
            c.read(offset, into);
        } catch (ClosedChannelException e) {
            if (Thread.currentThread().isInterrupted()) {
                throw e;
            }
            throw new GoneException(id);
        }
    }

    /** Synchronized on this object: a test holding its monitor stalls the syncer. */
    @Override
    public synchronized void makeDurable() throws IOException {
        // Taken after the commits it serves were queued: every chunk they reference was appended
        // (and its container marked dirty) before that.
        ContainerSet.Dirty dirty = set.takeDirty();
        try {
            set.sync(dirty);
        } catch (IOException | RuntimeException e) {
            set.returnDirty(dirty);
            throw e;
        }
    }

    @Override
    public void seal() {
        set.seal();
    }

    @Override
    public List<Info> all() {
        List<Info> out = new ArrayList<>();
        for (Container c : set.all()) {
            out.add(new Info(c.id(), c.size(), c.dataStart()));
        }
        return out;
    }

    @Override
    public int count() {
        return set.count();
    }

    @Override
    public long totalBytes() {
        return set.totalBytes();
    }

    @Override
    public String headerProblem(int id) throws IOException {
        Container c = set.get(id);
        if (c == null) {
            throw new GoneException(id);
        }
        try {
            return c.headerProblem();
        } catch (ClosedChannelException e) {
            throw new GoneException(id);
        }
    }

    @Override
    public Container createForCopies() throws IOException {
        return set.create();
    }

    @Override
    public void syncCopies(List<Container> written) throws IOException {
        for (Container o : written) {
            o.force();
        }
        if (!written.isEmpty()) {
            FileSync.syncDirectory(set.directory());
        }
    }

    @Override
    public List<Integer> remove(List<Integer> ids) throws IOException {
        for (int id : ids) {
            set.remove(id);
        }
        FileSync.syncDirectory(set.directory());
        return List.of();
    }

    @Override
    public long usableSpace() throws IOException {
        return set.space().usable();
    }

    /**
     * Fsyncs what the snapshot covers, then writes it; not when it would eat into the disk
     * reserve. The dirty marks stay for the syncer, whose batches must not lose their fsyncs to this one.
     */
    @Override
    public void saveIndex(ChunkIndex index, String unitName) {
        Path file = snapshotPath(unitDir);
        try {
            set.sync(set.peekDirty());
            long size = IndexSnapshot.sizeOf(index, set.count());
            if (!set.space().fitsAboveReserve(encryption.encrypted() ? size + BlobSeal.overhead(size) : size)) {
                LOG.warning(() -> "unit " + unitName + ": no index snapshot written: it would eat into the disk reserve; the next open scans");
                return;
            }
            IndexSnapshot.write(file, index, set.lengths(), encryption.blobs());
        } catch (IOException e) {
            LOG.warning(() -> "unit " + unitName + ": could not write the index snapshot (" + e.getMessage() + "); the next open scans");
            try {
                Files.deleteIfExists(snapshotTemp(unitDir));
            } catch (IOException ignored) {
                // Deleted by the next open.
            }
        }
    }

    @Override
    public void dropIndex() throws IOException {
        if (Files.deleteIfExists(snapshotPath(unitDir))) {
            FileSync.syncDirectory(unitDir);
        }
    }

    @Override
    public void close() throws IOException {
        set.close();
    }
}
