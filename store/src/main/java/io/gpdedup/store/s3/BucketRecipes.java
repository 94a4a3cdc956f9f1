package io.gpdedup.store.s3;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.CrcTrailer;
import io.gpdedup.store.crypt.BlobSeal;
import io.gpdedup.store.crypt.SealException;
import io.gpdedup.store.recipe.ObjectName;
import io.gpdedup.store.recipe.RecipeCatalog;
import io.gpdedup.store.recipe.RecipeStore;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.logging.Logger;

/**
 * A unit's recipes as objects {@code units/<unit>/recipes/<file name>} (the local recipe file
 * format, docs/format.md section 3; in an encrypted unit sealed whole, as on disk, section 9.3).
 * A PUT is atomic, so a recipe is staged by writing it where it belongs, once its containers are
 * in the bucket; publishing has nothing left to do. The catalog checkpoint is sealed likewise.
 *
 * <p>Opening lists the recipes and takes name, length and commit time from the catalog
 * checkpoint ({@code catalog.snap}) for every recipe whose ETag it records, reading only the
 * others, so a start costs a listing, one checkpoint and the recipes written since it.
 */
final class BucketRecipes implements RecipeStore {
    private static final Logger LOG = Logger.getLogger(BucketRecipes.class.getName());
    private static final long MAGIC_V1 = 0x4750444341543031L; // "GPDCAT01"
    private static final long MAGIC = 0x4750444341543032L; // "GPDCAT02": adds each entry's retention lock
    /** Changes to the catalog between two checkpoints. */
    static final int CHECKPOINT_EVERY = 256;
    private static final int FETCHERS = 16;
    private static final long RECENT_BYTES = 64L << 20;
    private static final String CATALOG = "catalog checkpoint";

    private record Known(String name, long length, long committedAtMillis, String etag, RetentionLock lock) {
    }

    private final String unit;
    private final UnitKeys keys;
    private final Bucket bucket;
    private final UnitLease lease;
    private final BlobSeal seal; // null: plaintext
    /** The ETag of every recipe this store knows, by file name: what a checkpoint records. */
    private final Map<String, String> etags = new ConcurrentHashMap<>();
    private int changesSinceCheckpoint; // guarded by this
    /** Recipes read or written lately, by file name: garbage collection reads every recipe at each run. */
    private final java.util.LinkedHashMap<String, byte[]> recent = new java.util.LinkedHashMap<>(64, 0.75f, true); // guarded by itself
    private long recentBytes; // guarded by recent

    /** {@code seal}: what seals the recipes and the catalog checkpoint of an encrypted unit (null: plaintext). */
    BucketRecipes(String unit, Bucket bucket, UnitLease lease, BlobSeal seal) {
        this.unit = unit;
        this.seal = seal;
        this.keys = new UnitKeys(unit);
        this.bucket = bucket;
        this.lease = lease;
    }

    @Override
    public List<RecipeCatalog.Entry> load(List<String> problems) throws IOException {
        Map<String, Known> checkpoint = readCheckpoint();
        List<RecipeCatalog.Entry> out = new ArrayList<>();
        List<Bucket.Listed> toRead = new ArrayList<>();
        for (Bucket.Listed o : bucket.list(keys.recipes())) {
            String file = o.key().substring(keys.recipes().length());
            if (!file.endsWith(ObjectName.SUFFIX) || file.contains("/")) {
                continue;
            }
            Known k = checkpoint.get(file);
            if (k != null && k.etag().equals(o.etag())) {
                out.add(new RecipeCatalog.Entry(k.name(), file, k.length(), k.committedAtMillis(), false, k.lock()));
                etags.put(file, o.etag());
            } else {
                toRead.add(o);
            }
        }
        out.addAll(readAll(toRead, problems));
        int fromCheckpoint = out.size() - toRead.size();
        LOG.info(() -> "unit " + unit + ": " + (fromCheckpoint + toRead.size()) + " objects (" + fromCheckpoint + " from the catalog checkpoint, "
                + toRead.size() + " recipes read)");
        if (toRead.size() >= CHECKPOINT_EVERY) {
            synchronized (this) {
                changesSinceCheckpoint = CHECKPOINT_EVERY; // save one at the next change
            }
        }
        return out;
    }

    private List<RecipeCatalog.Entry> readAll(List<Bucket.Listed> listed, List<String> problems) throws IOException {
        List<RecipeCatalog.Entry> out = new ArrayList<>();
        if (listed.isEmpty()) {
            return out;
        }
        ExecutorService pool = Executors.newFixedThreadPool(Math.min(FETCHERS, listed.size()), r -> {
            Thread t = new Thread(r, "gpdedup-s3-recipe-read");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<Optional<byte[]>>> reads = new ArrayList<>();
            for (Bucket.Listed o : listed) {
                reads.add(pool.submit(() -> bucket.get(o.key())));
            }
            for (int i = 0; i < listed.size(); i++) {
                Optional<byte[]> b = Futures.await(reads.get(i), Futures::asIOException, e -> new IOException("interrupted while reading recipes", e));
                if (b.isEmpty()) {
                    continue; // deleted since the listing
                }
                String file = listed.get(i).key().substring(keys.recipes().length());
                byte[] bytes;
                try {
                    bytes = opened(file, b.get());
                } catch (SealException e) {
                    problems.add(e.getMessage());
                    // Listed damaged, as a recipe that does not decode is: the bytes below decode to nothing.
                    out.add(RecipeCatalog.entryOf(file, new byte[0], new ArrayList<>()));
                    continue;
                }
                out.add(RecipeCatalog.entryOf(file, bytes, problems));
                etags.put(file, listed.get(i).etag());
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    @Override
    public Optional<byte[]> read(String fileName) throws IOException {
        synchronized (recent) {
            byte[] b = recent.get(fileName);
            if (b != null) {
                return Optional.of(b);
            }
        }
        Optional<byte[]> stored = bucket.get(keys.recipe(fileName));
        if (stored.isEmpty()) {
            return stored;
        }
        byte[] bytes = opened(fileName, stored.get());
        remember(fileName, bytes);
        return Optional.of(bytes);
    }

    private byte[] opened(String fileName, byte[] stored) throws IOException {
        return seal == null ? stored : seal.open(stored, "recipe " + fileName);
    }

    /** Keeps a recipe this store read or wrote; only this store writes the unit while it holds the lease. */
    private void remember(String fileName, byte[] bytes) {
        synchronized (recent) {
            byte[] old = recent.put(fileName, bytes);
            recentBytes += bytes.length - (old == null ? 0 : old.length);
            var it = recent.entrySet().iterator();
            while (recentBytes > RECENT_BYTES && it.hasNext()) {
                recentBytes -= it.next().getValue().length;
                it.remove();
            }
        }
    }

    private void forget(String fileName) {
        synchronized (recent) {
            byte[] old = recent.remove(fileName);
            if (old != null) {
                recentBytes -= old.length;
            }
        }
    }

    @Override
    public Staged stage(String name, long committedAtMillis, long length, byte[] bytes, RetentionLock lock) throws IOException {
        long takes = lease.takes();
        lease.checkWritable();
        String file = ObjectName.fileName(name);
        forget(file);
        // Without Object Lock (allowed only while no unit's config asks for locks: a copy keeping its source's) the lock is the store's alone.
        boolean held = lock.mode() != RetentionLock.Mode.NONE && bucket.locks().enabled();
        byte[] stored = seal == null ? bytes : seal.seal(bytes, "recipe " + file);
        String etag = bucket.put(keys.recipe(file), stored, held ? lock : RetentionLock.NONE);
        remember(file, bytes);
        etags.put(file, etag != null ? etag : Bucket.md5Hex(stored));
        // The recipe is the commit's last write: a store that takes the unit over later lists it.
        lease.confirmHeld(takes, "the recipe of " + name);
        return new Staged(name, null, length, committedAtMillis);
    }

    @Override
    public void publish(List<Staged> staged) {
        // Each recipe is in the bucket already: a PUT is atomic.
    }

    @Override
    public void discard(Staged staged) {
        // Never staged apart from its place; publishing cannot fail.
    }

    @Override
    public List<String> delete(List<String> fileNames, boolean bypassGovernance) throws IOException {
        lease.checkWritable();
        List<String> keyList = new ArrayList<>();
        for (String f : fileNames) {
            keyList.add(keys.recipe(f));
            forget(f);
        }
        List<String> heldKeys = bucket.deleteAll(keyList, bypassGovernance);
        List<String> kept = new ArrayList<>();
        for (String f : fileNames) {
            if (heldKeys.contains(keys.recipe(f))) {
                kept.add(f);
            } else {
                etags.remove(f);
            }
        }
        return kept;
    }

    @Override
    public void changed(Collection<RecipeCatalog.Entry> entries, boolean closing) {
        synchronized (this) {
            if (!closing && ++changesSinceCheckpoint < CHECKPOINT_EVERY) {
                return;
            }
            if (closing && changesSinceCheckpoint == 0) {
                return;
            }
            changesSinceCheckpoint = 0;
        }
        try {
            lease.checkWritable();
            byte[] plain = encode(entries);
            bucket.put(keys.catalogCheckpoint(), seal == null ? plain : seal.seal(plain, CATALOG));
        } catch (IOException e) {
            LOG.warning(() -> "unit " + unit + ": could not save the catalog checkpoint (" + e.getMessage() + "); the next start reads more recipes");
        }
    }

    /**
     * magic | count | count x { file name, ETag, object name (u16 length + UTF-8 each), length (8),
     * commit time (8), lock mode (1), lock end (8) } | CRC-32C. Version 1 had no lock fields.
     */
    private byte[] encode(Collection<RecipeCatalog.Entry> entries) {
        List<byte[][]> rows = new ArrayList<>();
        List<long[]> numbers = new ArrayList<>();
        int size = 8 + 4 + CrcTrailer.BYTES;
        for (RecipeCatalog.Entry e : entries) {
            String etag = etags.get(e.fileName());
            if (e.damaged() || etag == null) {
                continue; // read again at the next start
            }
            byte[][] row = {utf8(e.fileName()), utf8(etag), utf8(e.name())};
            rows.add(row);
            numbers.add(new long[] {e.length(), e.committedAtMillis(), e.lock().mode().code(), e.lock().untilMillis()});
            size += 6 + row[0].length + row[1].length + row[2].length + 16 + 9;
        }
        ByteBuffer b = ByteBuffer.allocate(size);
        b.putLong(MAGIC).putInt(rows.size());
        for (int i = 0; i < rows.size(); i++) {
            for (byte[] s : rows.get(i)) {
                b.putShort((short) s.length).put(s);
            }
            long[] n = numbers.get(i);
            b.putLong(n[0]).putLong(n[1]).put((byte) n[2]).putLong(n[3]);
        }
        CrcTrailer.append(b);
        return b.array();
    }

    private Map<String, Known> readCheckpoint() throws IOException {
        Optional<byte[]> data = bucket.get(keys.catalogCheckpoint());
        if (data.isEmpty()) {
            return Map.of();
        }
        Map<String, Known> out = new HashMap<>();
        try {
            byte[] d = seal == null ? data.get() : seal.open(data.get(), CATALOG);
            ByteBuffer b = ByteBuffer.wrap(d);
            if (!CrcTrailer.matches(d)) {
                throw new IllegalArgumentException("checksum");
            }
            long magic = b.getLong();
            if (magic != MAGIC && magic != MAGIC_V1) {
                throw new IllegalArgumentException("magic");
            }
            int n = b.getInt();
            for (int i = 0; i < n; i++) {
                String file = string(b);
                String etag = string(b);
                String name = string(b);
                long length = b.getLong();
                long committedAt = b.getLong();
                RetentionLock lock = magic == MAGIC_V1 ? RetentionLock.NONE
                        : new RetentionLock(RetentionLock.Mode.ofCode(b.get() & 0xff), b.getLong());
                out.put(file, new Known(name, length, committedAt, etag, lock));
            }
            return out;
        } catch (BufferUnderflowException | IllegalArgumentException | IndexOutOfBoundsException | SealException e) {
            LOG.warning(() -> "unit " + unit + ": the catalog checkpoint is damaged; reading every recipe instead");
            return new TreeMap<>();
        }
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String string(ByteBuffer b) {
        byte[] s = new byte[b.getShort() & 0xffff];
        b.get(s);
        return new String(s, StandardCharsets.UTF_8);
    }
}
