package io.gpdedup.store.s3;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.store.container.OwnerOnly;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * Container bytes read from the bucket, kept on local disk in aligned segments and evicted least
 * recently used first once they pass the byte budget. A segment goes to disk when it is fetched a
 * second time; the last few fetched are kept in memory. A read that misses fetches whole segments
 * with ranged GETs (however many records the restore then takes from them) and queues a fetch of
 * the next ones, several in one GET, so a restore reading a container in order finds them there.
 * Every segment has at most one GET under way or queued: concurrent misses share it, and a read
 * that reaches a queued segment before the prefetcher does sends its GET itself. Containers are
 * immutable and their ids never come back within a process, so nothing cached is ever stale; the
 * cache is emptied at start, since it is only a cache.
 *
 * <p>Whole segments in memory live in arrays that are used again once nothing holds them: an
 * array that large is a humongous object to G1, and allocating one per GET started a garbage
 * collection cycle every few GETs, which cost the store more CPU in a restore than the GETs
 * themselves.
 */
final class ReadCache implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(ReadCache.class.getName());
    /** Segment size: one GET per 4 MiB read, about 256 GETs per GiB restored in order. */
    private static final int SEGMENT = 4 << 20;
    private static final int PREFETCH_SEGMENTS = 2;
    /** Segments a prefetch asks for in one GET (16 MiB): each request costs the store and the server CPU of its own. */
    private static final int RUN_SEGMENTS = 4;
    private static final int PREFETCH_THREADS = 4;
    /**
     * Segments last fetched, kept in memory as well: a restore takes many records from each in
     * turn, and reading them there costs no file open and read per record.
     */
    private static final int HOT_SEGMENTS = 16;
    /** Arrays kept for the next segments fetched: enough for the prefetches under way at once. */
    private static final int POOLED_ARRAYS = RUN_SEGMENTS;

    private record Key(String unit, int container, long segment) {
        String fileName() {
            return unit + "-" + container + "-" + segment;
        }
    }

    /**
     * A segment being fetched, or queued for a prefetch: whoever claims it first (the prefetcher,
     * or a read that needs it before the prefetcher got to it) sends the GET; the others wait.
     */
    private static final class Fetch {
        final CompletableFuture<Segment> bytes = new CompletableFuture<>();
        private final AtomicBoolean claimed = new AtomicBoolean();

        boolean claim() {
            return claimed.compareAndSet(false, true);
        }
    }

    /**
     * A segment's bytes in memory ({@code length} of them, in a pooled array), and whether a read
     * has taken anything from it yet. Whoever reads the bytes holds a reference: the hot segments
     * hold one each, a fetch one until it handed the segment on; the array goes back to the pool
     * when the last is released.
     */
    private final class Segment {
        final byte[] bytes;
        final int length;
        private final AtomicInteger refs = new AtomicInteger(1);
        boolean read; // guarded by ReadCache.this

        Segment(int length) {
            this.bytes = length == segment ? takeArray() : new byte[length];
            this.length = length;
        }

        /** A reference more, unless the last one is gone already (the array may hold another segment by now). */
        boolean retain() {
            for (int n = refs.get(); n > 0; n = refs.get()) {
                if (refs.compareAndSet(n, n + 1)) {
                    return true;
                }
            }
            return false;
        }

        void release() {
            if (refs.decrementAndGet() == 0) {
                giveBack(bytes);
            }
        }
    }

    /** Where a segment comes from: the object key of a container and its length. */
    record Source(Bucket bucket, String key, long length) {
    }

    private final Path dir;
    private final long budget;
    private final int segment;
    private final LinkedHashMap<Key, Integer> lru = new LinkedHashMap<>(256, 0.75f, true); // guarded by this
    private long cachedBytes; // guarded by this
    private final LinkedHashMap<Key, Segment> hot = new LinkedHashMap<>(16, 0.75f, true); // guarded by this
    private final ArrayDeque<byte[]> pool = new ArrayDeque<>(); // guarded by itself
    /** Segments fetched once and not kept on disk, as many as the disk budget holds (keys only). */
    private final LinkedHashMap<Key, Boolean> fetchedOnce = new LinkedHashMap<>(256, 0.75f, true); // guarded by this
    private final Map<Key, Fetch> inFlight = new ConcurrentHashMap<>();
    private final ExecutorService prefetcher = Executors.newFixedThreadPool(PREFETCH_THREADS, r -> {
        Thread t = new Thread(r, "gpdedup-s3-prefetch");
        t.setDaemon(true);
        return t;
    });
    private final AtomicLong hits = new AtomicLong();
    private final AtomicLong misses = new AtomicLong();
    private final AtomicLong fetched = new AtomicLong();
    private final AtomicLong tempSeq = new AtomicLong();

    private ReadCache(Path dir, long budget, int segment) {
        this.dir = dir;
        this.budget = budget;
        this.segment = segment;
    }

    /** Empties {@code dir} (creating it) and caches at most {@code budget} bytes in it. */
    static ReadCache open(Path dir, long budget) throws IOException {
        return open(dir, budget, SEGMENT);
    }

    /** As above, in segments of {@code segment} bytes. */
    static ReadCache open(Path dir, long budget, int segment) throws IOException {
        CacheDirs.empty(dir);
        return new ReadCache(dir, budget, segment);
    }

    /** {@code length} bytes at {@code offset} of a container, from the cache or the bucket. */
    byte[] read(String unit, int container, Source src, long offset, int length) throws IOException {
        if (offset < 0 || length < 0 || offset + length > src.length()) {
            throw new EOFException("read past the end of container " + container + " at " + offset + "+" + length);
        }
        long first = offset / segment;
        long last = length == 0 ? first : (offset + length - 1) / segment;
        if (first == last) {
            Segment inMemory = retainHot(new Key(unit, container, first));
            if (inMemory != null) {
                // Most records lie within one segment: a copy of the range, without first zeroing a new array.
                hits.incrementAndGet();
                int at = (int) (offset - first * segment);
                byte[] out;
                try {
                    out = Arrays.copyOfRange(inMemory.bytes, at, at + length);
                } finally {
                    inMemory.release();
                }
                prefetch(unit, container, src, last + 1);
                return out;
            }
        }
        byte[] out = new byte[length];
        for (long seg = first; seg <= last; seg++) {
            long segStart = seg * segment;
            long from = Math.max(offset, segStart);
            long to = Math.min(offset + length, segStart + segmentLength(src, seg));
            Key key = new Key(unit, container, seg);
            Segment inMemory = retainHot(key);
            if (inMemory == null && readCached(key, from - segStart, out, (int) (from - offset), (int) (to - from))) {
                hits.incrementAndGet();
                continue;
            }
            if (inMemory != null) {
                hits.incrementAndGet();
            } else {
                misses.incrementAndGet();
                inMemory = fetch(key, src);
                markRead(inMemory);
            }
            try {
                System.arraycopy(inMemory.bytes, (int) (from - segStart), out, (int) (from - offset), (int) (to - from));
            } finally {
                inMemory.release();
            }
        }
        prefetch(unit, container, src, last + 1);
        return out;
    }

    /** The segment if it is in memory, marked as read from, with a reference for the caller; {@code null} if not. */
    private synchronized Segment retainHot(Key key) {
        Segment s = hot.get(key);
        if (s == null) {
            return null;
        }
        s.read = true;
        s.retain(); // always succeeds: the hot segments hold a reference
        return s;
    }

    private synchronized void markRead(Segment s) {
        s.read = true;
    }

    private byte[] takeArray() {
        synchronized (pool) {
            byte[] b = pool.poll();
            if (b != null) {
                return b;
            }
        }
        return new byte[segment];
    }

    private void giveBack(byte[] b) {
        if (b.length != segment) {
            return; // the last segment of a container, shorter: not worth keeping
        }
        synchronized (pool) {
            if (pool.size() < POOLED_ARRAYS) {
                pool.push(b);
            }
        }
    }

    private long segmentLength(Source src, long seg) {
        return Math.min(segment, src.length() - seg * segment);
    }

    private boolean readCached(Key key, long at, byte[] out, int outOffset, int length) throws IOException {
        synchronized (this) {
            if (lru.get(key) == null) {
                return false;
            }
        }
        try (FileChannel ch = FileChannel.open(dir.resolve(key.fileName()), StandardOpenOption.READ)) {
            ByteBuffer buf = ByteBuffer.wrap(out, outOffset, length);
            long pos = at;
            while (buf.hasRemaining()) {
                int n = ch.read(buf, pos);
                if (n < 0) {
                    return false;
                }
                pos += n;
            }
            return true;
        } catch (NoSuchFileException e) {
            return false; // evicted meanwhile
        }
    }

    /**
     * The segment, with a reference for the caller: fetched by this call, or by a fetch already
     * under way or queued.
     */
    private Segment fetch(Key key, Source src) throws IOException {
        boolean failedOnce = false;
        while (true) {
            Fetch mine = new Fetch();
            Fetch f = inFlight.putIfAbsent(key, mine);
            if (f == null) {
                f = mine;
            }
            if (f.claim()) {
                return load(src, List.of(key), List.of(f));
            }
            try {
                Segment s = await(f.bytes);
                if (s.retain()) {
                    return s;
                }
                // Pushed out of memory and released before this read got to it: looked up again.
            } catch (IOException e) {
                if (failedOnce) {
                    throw e;
                }
                failedOnce = true;
                // A prefetch's failure (it was only a guess): this read asks the bucket once more itself.
            }
        }
    }

    /**
     * Completes the fetches of consecutive segments of one container, entries in
     * {@link #inFlight} that the caller claimed, and returns the first segment with a reference
     * for the caller. The cache is looked at again first: a fetch that ended between a caller's
     * miss and its claim of the entry kept the segment, and must not cost a second GET. The rest
     * come with one GET per run of consecutive segments.
     */
    private Segment load(Source src, List<Key> keys, List<Fetch> fetches) throws IOException {
        Segment[] got = new Segment[keys.size()];
        try {
            for (int i = 0; i < keys.size(); i++) {
                got[i] = kept(keys.get(i), src);
                if (got[i] != null) {
                    fetches.get(i).bytes.complete(got[i]);
                }
            }
            for (int i = 0; i < keys.size(); i++) {
                int end = i;
                while (end < keys.size() && got[end] == null) {
                    end++;
                }
                if (end > i) {
                    get(src, keys.subList(i, end), fetches.subList(i, end), got, i);
                    i = end;
                }
            }
            Segment first = got[0];
            got[0] = null;
            return first;
        } catch (IOException | RuntimeException e) {
            for (Fetch f : fetches) {
                f.bytes.completeExceptionally(e); // (no effect on those already complete)
            }
            throw e;
        } finally {
            for (Segment s : got) {
                if (s != null) {
                    s.release();
                }
            }
            for (int i = 0; i < keys.size(); i++) {
                inFlight.remove(keys.get(i), fetches.get(i));
            }
        }
    }

    /** The segment with a reference for the caller if it is in memory or on disk; {@code null} if neither. */
    private Segment kept(Key key, Source src) {
        synchronized (this) {
            Segment s = hot.get(key);
            if (s != null) {
                s.retain(); // always succeeds: the hot segments hold a reference
                return s;
            }
        }
        Segment onDisk = new Segment((int) segmentLength(src, key.segment()));
        try {
            if (readCached(key, 0, onDisk.bytes, 0, onDisk.length)) {
                return onDisk;
            }
        } catch (IOException e) {
            LOG.fine(() -> "read cache: cannot read a kept segment: " + e.getMessage());
        }
        onDisk.release();
        return null;
    }

    /** Consecutive segments in one GET into {@code got} from {@code at}, each kept in memory and its fetch completed. */
    private void get(Source src, List<Key> keys, List<Fetch> fetches, Segment[] got, int at) throws IOException {
        ByteBuffer[] into = new ByteBuffer[keys.size()];
        for (int i = 0; i < keys.size(); i++) {
            got[at + i] = new Segment((int) segmentLength(src, keys.get(i).segment()));
            into[i] = ByteBuffer.wrap(got[at + i].bytes, 0, got[at + i].length);
        }
        src.bucket().getRange(src.key(), keys.get(0).segment() * segment, into);
        fetched.addAndGet(keys.size());
        List<Map.Entry<Key, Segment>> unread = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            Map.Entry<Key, Segment> pushedOut = keepHot(keys.get(i), got[at + i]);
            if (pushedOut != null) {
                unread.add(pushedOut);
            }
            fetches.get(i).bytes.complete(got[at + i]);
        }
        // Readers waiting for them went on; what is worth keeping now goes to the cache disk.
        for (int i = 0; i < keys.size(); i++) {
            if (secondFetch(keys.get(i))) {
                store(keys.get(i), got[at + i]);
            }
        }
        for (Map.Entry<Key, Segment> e : unread) {
            // Prefetched for a reader slower than the others (a container it takes a chunk from
            // now and then): kept on disk rather than asked of the bucket again.
            try {
                store(e.getKey(), e.getValue());
            } finally {
                e.getValue().release();
            }
        }
    }

    private static Segment await(CompletableFuture<Segment> f) throws IOException {
        return Futures.await(f, Futures::asIOException, e -> new IOException("interrupted while reading from the bucket", e));
    }

    /**
     * Queues a fetch of the segments after {@code fromSegment} when one of the next
     * {@value #PREFETCH_SEGMENTS} is neither kept nor under way: a run of up to
     * {@value #RUN_SEGMENTS} of them from there, in one GET. Each is claimed in {@link #inFlight}
     * at once, so the many reads of one segment queue its successors once, and a read that needs
     * one before its turn waits for it instead of asking the bucket a second time.
     */
    private void prefetch(String unit, int container, Source src, long fromSegment) {
        if (budget < (long) segment * PREFETCH_THREADS * 4) {
            return; // a cache this small would evict what it prefetched before it is read
        }
        long start = -1;
        for (long seg = fromSegment; seg < fromSegment + PREFETCH_SEGMENTS && seg * segment < src.length(); seg++) {
            if (!keptOrUnderWay(new Key(unit, container, seg))) {
                start = seg;
                break;
            }
        }
        if (start < 0) {
            return;
        }
        List<Key> keys = new ArrayList<>(RUN_SEGMENTS);
        List<Fetch> queued = new ArrayList<>(RUN_SEGMENTS);
        for (long seg = start; seg < start + RUN_SEGMENTS && seg * segment < src.length(); seg++) {
            Key key = new Key(unit, container, seg);
            Fetch f = new Fetch();
            if (keptOrUnderWay(key) || inFlight.putIfAbsent(key, f) != null) {
                break;
            }
            keys.add(key);
            queued.add(f);
        }
        if (keys.isEmpty()) {
            return;
        }
        try {
            prefetcher.execute(() -> loadClaimed(src, keys, queued));
        } catch (RejectedExecutionException e) {
            for (int i = 0; i < keys.size(); i++) {
                inFlight.remove(keys.get(i), queued.get(i));
                queued.get(i).bytes.completeExceptionally(new IOException("the store is closing"));
            }
        }
    }

    private boolean keptOrUnderWay(Key key) {
        synchronized (this) {
            if (lru.containsKey(key) || hot.containsKey(key)) {
                return true;
            }
        }
        return inFlight.containsKey(key);
    }

    /** A queued run: the segments a read has not claimed for itself meanwhile, in runs of consecutive ones. */
    private void loadClaimed(Source src, List<Key> keys, List<Fetch> queued) {
        int i = 0;
        while (i < keys.size()) {
            if (!queued.get(i).claim()) {
                i++;
                continue;
            }
            int end = i + 1;
            while (end < keys.size() && queued.get(end).claim()) {
                end++;
            }
            try {
                load(src, keys.subList(i, end), queued.subList(i, end)).release();
            } catch (IOException | RuntimeException e) {
                // Only a guess: the reads waiting for these ask the bucket themselves.
            }
            i = end + 1; // (the one at end, if any, was claimed by a read)
        }
    }

    /**
     * Whether the bucket was asked for this segment before. Only such segments go to the cache
     * disk: a restore reads most segments once, and writing each of them to disk cost as much CPU
     * as the restore's own work, and would push out of the cache what is read again (a retried
     * restore, a gprestore reading one file once per table) for what never is.
     */
    private synchronized boolean secondFetch(Key key) {
        if (fetchedOnce.remove(key) != null) {
            return true;
        }
        fetchedOnce.put(key, Boolean.TRUE);
        long remembered = Math.max(1, budget / segment);
        Iterator<Key> eldest = fetchedOnce.keySet().iterator();
        while (fetchedOnce.size() > remembered) {
            eldest.next();
            eldest.remove();
        }
        return false;
    }

    /**
     * Keeps the segment in memory (with a reference of its own); returns the one it pushed out if
     * nothing was read from that one yet, whose reference the caller then releases.
     */
    private synchronized Map.Entry<Key, Segment> keepHot(Key key, Segment s) {
        s.retain();
        Segment replaced = hot.put(key, s);
        if (replaced != null) {
            replaced.release();
        }
        if (hot.size() <= HOT_SEGMENTS) {
            return null;
        }
        Iterator<Map.Entry<Key, Segment>> eldest = hot.entrySet().iterator();
        Map.Entry<Key, Segment> e = eldest.next();
        eldest.remove();
        if (e.getValue().read) {
            e.getValue().release();
            return null;
        }
        return Map.entry(e.getKey(), e.getValue());
    }

    private void store(Key key, Segment s) {
        if (budget < s.length) {
            return;
        }
        Path temp = dir.resolve(key.fileName() + "." + tempSeq.incrementAndGet() + ".tmp");
        try {
            // One write, not Files.write's 8 KiB pieces.
            try (FileChannel ch = OwnerOnly.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer buf = ByteBuffer.wrap(s.bytes, 0, s.length);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            }
            Files.move(temp, dir.resolve(key.fileName()), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            LOG.fine(() -> "read cache: cannot keep a segment: " + e.getMessage());
            try {
                Files.deleteIfExists(temp);
            } catch (IOException ignored) {
                // A full cache disk: reads go on from the bucket.
            }
            return;
        }
        List<Key> evicted = new ArrayList<>();
        synchronized (this) {
            Integer old = lru.put(key, s.length);
            cachedBytes += s.length - (old == null ? 0 : old);
            Iterator<Map.Entry<Key, Integer>> it = lru.entrySet().iterator();
            while (cachedBytes > budget && it.hasNext()) {
                Map.Entry<Key, Integer> e = it.next();
                if (e.getKey().equals(key)) {
                    continue;
                }
                cachedBytes -= e.getValue();
                evicted.add(e.getKey());
                it.remove();
            }
        }
        for (Key k : evicted) {
            deleteQuietly(k);
        }
    }

    /** Forgets a removed container's segments. */
    void drop(String unit, int container) {
        List<Key> gone = new ArrayList<>();
        synchronized (this) {
            Iterator<Map.Entry<Key, Segment>> inMemory = hot.entrySet().iterator();
            while (inMemory.hasNext()) {
                Map.Entry<Key, Segment> e = inMemory.next();
                if (e.getKey().unit().equals(unit) && e.getKey().container() == container) {
                    e.getValue().release();
                    inMemory.remove();
                }
            }
            fetchedOnce.keySet().removeIf(k -> k.unit().equals(unit) && k.container() == container);
            Iterator<Map.Entry<Key, Integer>> it = lru.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Key, Integer> e = it.next();
                if (e.getKey().unit().equals(unit) && e.getKey().container() == container) {
                    cachedBytes -= e.getValue();
                    gone.add(e.getKey());
                    it.remove();
                }
            }
        }
        for (Key k : gone) {
            deleteQuietly(k);
        }
    }

    private void deleteQuietly(Key k) {
        try {
            Files.deleteIfExists(dir.resolve(k.fileName()));
        } catch (IOException e) {
            // Unaccounted now, and emptied at the next start.
        }
    }

    /** Segments being fetched or queued for a prefetch. */
    int fetchesUnderWay() {
        return inFlight.size();
    }

    synchronized long cachedBytes() {
        return cachedBytes;
    }

    long hits() {
        return hits.get();
    }

    long misses() {
        return misses.get();
    }

    /** Segments read from the bucket (several to a GET when prefetched). */
    long segmentsFetched() {
        return fetched.get();
    }

    @Override
    public void close() {
        prefetcher.shutdownNow();
        // Queued prefetches never run now: a read waiting for one must not wait forever.
        for (Fetch f : inFlight.values()) {
            f.bytes.completeExceptionally(new IOException("the store is closing"));
        }
    }
}
