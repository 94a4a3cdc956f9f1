package io.gpdedup.store.s3;

import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.container.ChunkRecord;
import io.gpdedup.store.container.Container;
import io.gpdedup.store.container.ContainerScanner;
import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.container.RecordFormat;
import io.gpdedup.store.crypt.BlobSeal;
import io.gpdedup.store.crypt.DataKeys;
import io.gpdedup.store.crypt.Kek;
import io.gpdedup.store.crypt.KeyException;
import io.gpdedup.store.crypt.UnitEncryption;
import io.gpdedup.store.recipe.ObjectName;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * encrypt-unit for a bucket unit (docs/s3.md, section 3): converts a plaintext unit to an
 * encrypted one, as {@link io.gpdedup.store.crypt.UnitConversion} does on disk, under the unit's
 * lease so that no store writes it meanwhile. A bucket renames nothing, so the run goes in steps
 * that are each safe to repeat:
 *
 * <ol>
 * <li>the conversion-state object {@code containers/encrypting} is written first: the new data
 * keys (wrapped) and the first container id of the sealed copies, above every id the unit has;
 * from then on a start refuses the unit;
 * <li>each plaintext container gets a sealed copy under its own new id, with its sealed index
 * object and the plaintext container's retention; one already copied is skipped;
 * <li>the keys object is written: the one step that commits;
 * <li>each recipe is sealed in place, keeping its retention; the checkpoints and the plaintext
 * containers are deleted, and last the conversion-state object.
 * </ol>
 *
 * A run cut off anywhere is finished by running it again. Plaintext versions the bucket's Object
 * Lock still holds cannot be deleted: they are hidden behind delete markers and counted; the
 * bucket's lifecycle rule frees them once their retention ends.
 */
public final class BucketConversion {
    /** Kept among the containers, so that the listing a start makes anyway finds it. */
    static final String STATE = "encrypting";
    private static final String STATE_HEADER = "gpdedup-unit-encrypting v1";
    private static final String FIRST = "first-sealed ";

    /** What a run did; {@code kept}: plaintext object versions the bucket holds under retention. */
    public record Result(boolean alreadyEncrypted, int containers, long records, long damagedBytes, int recipes, int kept) {
    }

    private final String unit;
    private final UnitKeys keys;
    private final Bucket bucket;
    private final UnitLease lease;
    private final Path spool;
    private int containers;
    private long records;
    private long damagedBytes;
    private int recipes;
    private int kept;

    private BucketConversion(String unit, Bucket bucket, UnitLease lease, Path spool) {
        this.unit = unit;
        this.keys = new UnitKeys(unit);
        this.bucket = bucket;
        this.lease = lease;
        this.spool = spool;
    }

    /** The key of the unit's conversion-state object. */
    static String stateKey(UnitKeys keys) {
        return keys.containers() + STATE;
    }

    /** The one line a start gives for a unit whose conversion did not finish. */
    static String unfinished(String unit) {
        return "unit " + unit + ": a conversion to encrypted did not finish; run gpdedup-store encrypt-unit " + unit + " again";
    }

    /**
     * Converts (or finishes converting) unit {@code unit} in the bucket so that its data keys are
     * wrapped by {@code kek}; empty when the bucket holds no such unit. {@link LeaseHeldException}
     * when a store serves the unit, before anything is written.
     */
    public static Optional<Result> convert(S3Settings s3, Path dataDir, String unit, Kek kek) throws IOException {
        try (Bucket bucket = Bucket.open(s3)) {
            UnitKeys keys = new UnitKeys(unit);
            if (bucket.list(keys.containers()).isEmpty() && bucket.list(keys.recipes()).isEmpty() && bucket.get(keys.keys()).isEmpty()) {
                return Optional.empty();
            }
            UnitLease lease = UnitLease.acquire(bucket, unit, StoreIdentity.of(dataDir), s3.leaseSeconds(), bucket.conditionalWrites());
            ScheduledExecutorService renewals = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "gpdedup-s3-lease");
                t.setDaemon(true);
                return t;
            });
            Path spool = s3.cacheDir().resolve("encrypt").resolve(unit);
            try {
                long every = Math.max(1, s3.leaseSeconds() / 6);
                renewals.scheduleWithFixedDelay(lease::renew, every, every, TimeUnit.SECONDS);
                CacheDirs.empty(spool);
                Result r = new BucketConversion(unit, bucket.fenced(lease::writeLimit), lease, spool).run(kek);
                // Cached ranges of the plaintext containers: a start empties the read cache too, but not before then.
                CacheDirs.empty(s3.cacheDir().resolve("read"));
                return Optional.of(r);
            } finally {
                renewals.shutdownNow();
                lease.release();
                CacheDirs.empty(spool);
                Files.deleteIfExists(spool);
            }
        }
    }

    private Result run(Kek kek) throws IOException {
        boolean locked = bucket.locks().enabled(); // also makes deletions go by version in a bucket with Object Lock
        Optional<byte[]> committed = bucket.get(keys.keys());
        Optional<byte[]> stateText = bucket.get(stateKey(keys));
        if (committed.isPresent() && stateText.isEmpty()) {
            DataKeys.open(committed.get(), "the keys object " + keys.keys(), unit, kek); // the key must open what a finished run leaves
            return new Result(true, 0, 0, 0, 0, 0);
        }
        State state;
        if (stateText.isPresent()) {
            state = State.parse(stateText.get(), stateKey(keys));
        } else {
            state = begin(kek);
        }
        if (committed.isEmpty()) {
            DataKeys staged = DataKeys.open(state.keys(), "the conversion-state object " + stateKey(keys), unit, kek);
            sealContainers(state.firstSealed(), staged, locked);
            lease.checkWritable();
            bucket.put(keys.keys(), state.keys()); // the commit: from here on the unit is encrypted
            committed = Optional.of(state.keys());
        }
        DataKeys current = DataKeys.open(committed.get(), "the keys object " + keys.keys(), unit, kek);
        finish(state.firstSealed(), current, locked);
        return new Result(false, containers, records, damagedBytes, recipes, kept);
    }

    /** Writes the conversion-state object of a new run; before it, nothing of the unit is touched. */
    private State begin(Kek kek) throws IOException {
        List<Bucket.Listed> listed = bucket.list(keys.containers());
        if (Boolean.TRUE.equals(BucketEncryption.firstContainerSealed(bucket, listed))) {
            throw new KeyException("unit " + unit + " holds encrypted containers but its keys object " + keys.keys()
                    + " is missing from the bucket: not converted; put the keys object back");
        }
        int maxId = 0;
        for (Bucket.Listed o : listed) {
            maxId = Math.max(maxId, UnitKeys.idOf(o.key().substring(keys.containers().length())));
        }
        State state = new State(maxId + BucketContainers.ID_GAP, DataKeys.create(unit, kek).text());
        lease.checkWritable();
        bucket.put(stateKey(keys), state.encode());
        return state;
    }

    /**
     * Seals each plaintext container (one with an index object, below {@code first}) into a new
     * container: the i-th (by id) becomes {@code first + i}, so a repeated run finds those already
     * copied, whose index object (written after the container) is there.
     */
    private void sealContainers(int first, DataKeys staged, boolean locked) throws IOException {
        Map<Integer, Long> sizes = new TreeMap<>();
        Map<Integer, Long> indexes = new TreeMap<>();
        for (Bucket.Listed o : bucket.list(keys.containers())) {
            String name = o.key().substring(keys.containers().length());
            int id = UnitKeys.idOf(name);
            if (id > 0) {
                (name.endsWith(UnitKeys.INDEX_SUFFIX) ? indexes : sizes).put(id, o.size());
            }
        }
        IndexObjects sealedIndex = new IndexObjects(unit, bucket, spool, UnitEncryption.of(staged));
        int target = first;
        for (Map.Entry<Integer, Long> c : sizes.entrySet()) {
            int id = c.getKey();
            if (id >= first || !indexes.containsKey(id)) {
                continue; // a sealed copy, or an upload cut short that a start would delete
            }
            if (!sizes.containsKey(target) || !indexes.containsKey(target)) {
                seal(id, c.getValue(), target, staged.records(), sealedIndex, locked);
            }
            containers++;
            target++;
        }
    }

    private void seal(int id, long size, int target, RecordFormat sealed, IndexObjects sealedIndex, boolean locked) throws IOException {
        RetentionLock lock = locked ? carried(keys.container(id)) : RetentionLock.NONE;
        Path plainFile = spool.resolve("plain-" + Container.fileName(id));
        Files.deleteIfExists(spool.resolve(Container.fileName(target)));
        try {
            OwnerOnly.write(plainFile, bucket.getRange(keys.container(id), 0, Math.toIntExact(size)));
            List<ContainerIndexFile.Entry> entries = new ArrayList<>();
            try (Container in = Container.open(plainFile, id); Container out = Container.create(spool, target)) {
                ContainerScanner.ScanResult r = ContainerScanner.scan(in, in.dataStart(), RecordFormat.PLAIN, (fp, offset, length) -> {
                    try {
                        ChunkRecord rec = RecordFormat.PLAIN.decode(ByteBuffer.wrap(in.read(offset, length)));
                        byte[] encoded = sealed.encode(rec);
                        entries.add(new ContainerIndexFile.Entry(fp, out.append(encoded), encoded.length));
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                });
                records += r.records();
                damagedBytes += r.damagedBytes() + r.truncatedBytes();
                out.force();
                lease.checkWritable();
                bucket.putFile(keys.container(target), out.path(), Bucket.md5(out.path()), lock);
                bucket.put(keys.containerIndex(target), sealedIndex.encode(target, out.dataStart(), out.size(), entries), lock);
            } catch (UncheckedIOException e) {
                throw e.getCause();
            }
        } finally {
            Files.deleteIfExists(plainFile);
            Files.deleteIfExists(spool.resolve(Container.fileName(target)));
        }
    }

    /** After the commit: recipes sealed in place, then the plaintext that is left deleted, the conversion-state object last. */
    private void finish(int first, DataKeys current, boolean locked) throws IOException {
        BlobSeal seal = current.blobs();
        for (Bucket.Listed o : bucket.list(keys.recipes())) {
            String file = o.key().substring(keys.recipes().length());
            if (!file.endsWith(ObjectName.SUFFIX) || file.contains("/")) {
                continue;
            }
            Optional<byte[]> plain = bucket.get(o.key());
            if (plain.isEmpty()) {
                continue;
            }
            if (!BlobSeal.sealed(plain.get())) { // else sealed by an earlier run, cut off before its plaintext versions went
                RetentionLock lock = locked ? carried(o.key()) : RetentionLock.NONE;
                lease.checkWritable();
                bucket.put(o.key(), seal.seal(plain.get(), "recipe " + file), lock);
                recipes++;
            }
            if (locked && !bucket.locks().deleteOlderVersions(o.key())) {
                kept++;
            }
        }
        lease.checkWritable();
        bucket.deleteAll(List.of(keys.indexCheckpoint(), keys.catalogCheckpoint()));
        List<String> indexObjects = new ArrayList<>();
        List<String> plainContainers = new ArrayList<>();
        for (Bucket.Listed o : bucket.list(keys.containers())) {
            String name = o.key().substring(keys.containers().length());
            int id = UnitKeys.idOf(name);
            if (id > 0 && id < first) {
                (name.endsWith(UnitKeys.INDEX_SUFFIX) ? indexObjects : plainContainers).add(o.key());
            }
        }
        // Index objects first, as a collection deletes: a container left without one is an orphan a start deletes.
        List<String> held = new ArrayList<>(bucket.deleteAll(indexObjects));
        held.addAll(bucket.deleteAll(plainContainers));
        for (String key : held) {
            bucket.delete(key); // a delete marker: gone from listings, so no start reads it, while its version is held
        }
        kept += held.size();
        lease.checkWritable();
        bucket.deleteAll(List.of(stateKey(keys)));
    }

    /** The retention of the object's current version, for its sealed copy: none once it has ended. */
    private RetentionLock carried(String key) throws IOException {
        RetentionLock lock = bucket.locks().of(key, null);
        return lock.holdsAt(System.currentTimeMillis()) ? lock : RetentionLock.NONE;
    }

    /** The conversion-state object: its format line, the first sealed container id, then the keys object's text. */
    private record State(int firstSealed, byte[] keys) {
        byte[] encode() {
            byte[] head = (STATE_HEADER + "\n" + FIRST + firstSealed + "\n").getBytes(StandardCharsets.US_ASCII);
            byte[] out = new byte[head.length + keys.length];
            System.arraycopy(head, 0, out, 0, head.length);
            System.arraycopy(keys, 0, out, head.length, keys.length);
            return out;
        }

        static State parse(byte[] bytes, String where) throws KeyException {
            String text = new String(bytes, StandardCharsets.UTF_8);
            String[] parts = text.split("\n", 3);
            if (parts.length < 3 || !parts[0].equals(STATE_HEADER) || !parts[1].startsWith(FIRST)) {
                throw new KeyException(where + " is damaged: not a conversion-state object");
            }
            int first;
            try {
                first = Integer.parseInt(parts[1].substring(FIRST.length()));
            } catch (NumberFormatException e) {
                first = -1;
            }
            if (first <= 0) {
                throw new KeyException(where + " is damaged: no first container id");
            }
            return new State(first, parts[2].getBytes(StandardCharsets.UTF_8));
        }
    }
}
