package io.gpdedup.store.s3;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.ContainerScanner;
import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.crypt.SealException;
import io.gpdedup.store.crypt.UnitEncryption;
import io.gpdedup.store.index.ChunkIndex;
import io.gpdedup.store.index.IndexSnapshot;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.logging.Logger;

/**
 * A bucket unit's index in the bucket: the index object of each container and the index
 * checkpoint, both sealed as blobs in an encrypted unit (docs/format.md section 9.3), the index
 * object bound to its container's id. Read by a start, written by uploads and checkpoints.
 */
final class IndexObjects {
    private static final Logger LOG = Logger.getLogger(IndexObjects.class.getName());
    private static final int FETCHERS = 16;
    /** The index checkpoint is read in parts of this size, this many under way ahead of the parser. */
    private static final int CHECKPOINT_PART = 8 << 20;
    private static final int CHECKPOINT_PARTS_AHEAD = 4;

    private final String unit;
    private final UnitKeys keys;
    private final Bucket bucket;
    private final Path spoolDir;
    private final UnitEncryption encryption;

    IndexObjects(String unit, Bucket bucket, Path spoolDir, UnitEncryption encryption) {
        this.unit = unit;
        this.keys = new UnitKeys(unit);
        this.bucket = bucket;
        this.spoolDir = spoolDir;
        this.encryption = encryption;
    }

    /** The bytes of container {@code id}'s index object, as uploaded. */
    byte[] encode(int id, long dataStart, long containerLength, List<ContainerIndexFile.Entry> entries) throws IOException {
        byte[] plain = ContainerIndexFile.encode(id, dataStart, containerLength, entries);
        return encryption.encrypted() ? encryption.blobs().seal(plain, what(id)) : plain;
    }

    /** An index object's contents; null when it is damaged (or does not authenticate). */
    private ContainerIndexFile.Contents decode(int id, byte[] bytes) throws IOException {
        if (!encryption.encrypted()) {
            return ContainerIndexFile.decode(bytes);
        }
        try {
            return ContainerIndexFile.decode(encryption.blobs().open(bytes, what(id)));
        } catch (SealException e) {
            return null;
        }
    }

    private static String what(int id) {
        return "container index " + id;
    }

    /**
     * The index checkpoint, if there is one and it is whole (its checksum passed, or it
     * authenticated): read as parallel ranged GETs and parsed as it arrives. Whether the containers
     * it covers are still there is for {@link #stillWhole} to say.
     */
    IndexSnapshot.Loaded readCheckpoint() throws IOException {
        IndexSnapshot.Loaded snap;
        Optional<RangedObjectStream> opened = RangedObjectStream.open(bucket, keys.indexCheckpoint(), CHECKPOINT_PART, CHECKPOINT_PARTS_AHEAD);
        if (opened.isEmpty()) {
            return null;
        }
        try (RangedObjectStream in = opened.get()) {
            snap = IndexSnapshot.read(in, in.length(), encryption.blobs());
        } catch (BucketException e) {
            if (e.kind() != BucketException.Kind.CONFLICT) {
                throw e;
            }
            LOG.info(() -> "unit " + unit + ": the index checkpoint changed while it was read; reading every index object instead");
            return null;
        }
        if (snap == null) {
            LOG.warning(() -> "unit " + unit + ": the index checkpoint is damaged; reading every index object instead");
            return null;
        }
        return snap;
    }

    /** Whether every container {@code snap} covers is still listed with its length, and its index object. */
    boolean stillWhole(IndexSnapshot.Loaded snap, Map<Integer, Long> containerSizes, Map<Integer, Long> indexObjects) {
        for (Map.Entry<Integer, Long> e : snap.covered().entrySet()) {
            Long size = containerSizes.get(e.getKey());
            if (size == null || size.longValue() != e.getValue() || !indexObjects.containsKey(e.getKey())) {
                LOG.info(() -> "unit " + unit + ": the index checkpoint is stale; reading every index object instead");
                return false;
            }
        }
        return true;
    }

    /** Uploads the checkpoint of {@code index}, covering the containers in {@code covered} (id to length). */
    void saveCheckpoint(ChunkIndex index, Map<Integer, Long> covered) throws IOException {
        Path temp = spoolDir.resolve("index.snap");
        try {
            IndexSnapshot.write(temp, index, covered, encryption.blobs());
            bucket.putFile(keys.indexCheckpoint(), temp);
        } finally {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // The spool is emptied at the next start.
            }
        }
    }

    /**
     * Index objects read in parallel, each handed to {@code each} in id order as soon as it is
     * there and not kept (ten million entries as objects would take gigabytes); a damaged one is
     * replaced by a scan of its container. Returns the data start of each container read.
     */
    Map<Integer, Long> fetch(List<Integer> ids, Map<Integer, Long> sizes, List<String> problems, Consumer<ContainerIndexFile.Contents> each)
            throws IOException {
        Map<Integer, Long> dataStarts = new HashMap<>();
        if (ids.isEmpty()) {
            return dataStarts;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(FETCHERS, ids.size()), r -> {
            Thread t = new Thread(r, "gpdedup-s3-index-read");
            t.setDaemon(true);
            return t;
        });
        try {
            TreeMap<Integer, Future<ContainerIndexFile.Contents>> pending = new TreeMap<>();
            for (int id : ids) {
                pending.put(id, pool.submit(() -> indexOf(id, sizes.get(id), problems)));
            }
            while (!pending.isEmpty()) {
                Map.Entry<Integer, Future<ContainerIndexFile.Contents>> e = pending.pollFirstEntry();
                ContainerIndexFile.Contents ci = Futures.await(e.getValue(), Futures::asIOException,
                        x -> new IOException("interrupted while reading index objects", x));
                each.accept(ci);
                dataStarts.put(e.getKey(), ci.dataStart());
            }
            return dataStarts;
        } finally {
            pool.shutdownNow();
        }
    }

    private ContainerIndexFile.Contents indexOf(int id, long size, List<String> problems) throws IOException {
        Optional<byte[]> b = bucket.get(keys.containerIndex(id));
        ContainerIndexFile.Contents ci = b.isPresent() ? decode(id, b.get()) : null;
        if (ci != null && ci.container() == id && ci.containerLength() == size) {
            return ci;
        }
        LOG.warning(() -> "unit " + unit + ": the index object of container " + id + " is damaged; reading the container instead");
        Path temp = spoolDir.resolve(Container.fileName(id));
        try {
            OwnerOnly.write(temp, bucket.getRange(keys.container(id), 0, Math.toIntExact(size)));
            try (Container c = Container.open(temp, id)) {
                List<ContainerIndexFile.Entry> entries = new ArrayList<>();
                ContainerScanner.ScanResult r = ContainerScanner.scan(c, c.dataStart(), encryption.records(),
                        (fp, offset, length) -> entries.add(new ContainerIndexFile.Entry(fp, offset, length)));
                if (r.damagedBytes() > 0 || r.truncatedBytes() > 0) {
                    synchronized (problems) {
                        problems.add("container " + id + ": " + (r.damagedBytes() + r.truncatedBytes()) + " damaged bytes skipped");
                    }
                }
                return new ContainerIndexFile.Contents(id, c.dataStart(), size, entries);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }
}
