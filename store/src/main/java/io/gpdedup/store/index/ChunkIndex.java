package io.gpdedup.store.index;

import io.gpdedup.protocol.model.Fingerprint;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Collection;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Fingerprint to chunk location, compact: linear probing over primitive arrays (four longs of key
 * and three ints of location per slot, no object per entry), grown by half when 80% full, so a
 * chunk costs 56 to 85 bytes. A Bloom filter in front answers most lookups of new chunks without
 * touching the table. Thread-safe: lookups share a read lock, changes take the write lock.
 *
 * <p>Slots are exposed for garbage collection, which marks by slot; they are stable only while
 * nothing is inserted or removed, which the storage unit guarantees during a collection.
 */
public final class ChunkIndex {
    /** Where a chunk's record is: container id, byte offset and record length. */
    public record Location(int container, long offset, int length) {
    }

    /** Receives occupied slots. */
    @FunctionalInterface
    public interface SlotVisitor {
        void slot(int slot, int container, long offset, int length);
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.BIG_ENDIAN);
    private static final double MAX_LOAD = 0.8;
    private static final int BLOOM_BITS_PER_SLOT = 8;
    private static final int MIN_CAPACITY = 1024;

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private long[] keys;
    private int[] containers; // 0 marks an empty slot: container ids start at 1
    private int[] offsets;
    private int[] lengths;
    private int capacity;
    private int size;
    private long recordBytes;
    private BloomFilter bloom;

    public ChunkIndex() {
        allocate(MIN_CAPACITY);
    }

    /**
     * An index sized for {@code expected} chunks. Needed when they arrive in hash order, as from a
     * snapshot (written in slot order): slots follow the hash, so inserting sorted keys into a
     * smaller table piles them onto its first slots, and every insert then probes the whole pile.
     */
    public ChunkIndex(long expected) {
        long cap = Math.max(MIN_CAPACITY, (long) Math.ceil(expected / MAX_LOAD) + 1);
        if (cap > Integer.MAX_VALUE / 4) {
            throw new IllegalArgumentException("too many chunks for one index: " + expected);
        }
        allocate((int) cap);
    }

    private void allocate(int cap) {
        capacity = cap;
        keys = new long[4 * cap];
        containers = new int[cap];
        offsets = new int[cap];
        lengths = new int[cap];
        bloom = new BloomFilter((long) cap * BLOOM_BITS_PER_SLOT);
        size = 0;
        recordBytes = 0;
    }

    public Location lookup(Fingerprint fp) {
        long[] k = words(fp);
        lock.readLock().lock();
        try {
            int s = find(k);
            return s < 0 ? null : new Location(containers[s], offsets[s] & 0xffffffffL, lengths[s]);
        } finally {
            lock.readLock().unlock();
        }
    }

    public boolean contains(Fingerprint fp) {
        long[] k = words(fp);
        lock.readLock().lock();
        try {
            return find(k) >= 0;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Adds a chunk; returns false (and changes nothing) if the fingerprint is already indexed. */
    public boolean insert(Fingerprint fp, int container, long offset, int length) {
        checkLocation(container, offset, length);
        long[] k = words(fp);
        lock.writeLock().lock();
        try {
            if (find(k) >= 0) {
                return false;
            }
            if (size + 1 > (long) (capacity * MAX_LOAD)) {
                grow();
            }
            put(k, container, (int) offset, length);
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Adds the first {@code n} chunks of a batch read from a snapshot: fingerprint words
     * {@code keys[4i..4i+3]} (big-endian, as {@link Fingerprint#toBytes()}), locations already
     * checked by the caller. One lock and no allocation for the whole batch. Returns false, having
     * added those before it, at the first fingerprint already indexed (a snapshot never repeats one).
     */
    boolean insertBatch(long[] keys, int[] containers, int[] offsets, int[] lengths, int n) {
        lock.writeLock().lock();
        try {
            long[] k = new long[4];
            for (int i = 0; i < n; i++) {
                System.arraycopy(keys, 4 * i, k, 0, 4);
                if (probe(k) >= 0) {
                    return false;
                }
                if (size + 1 > (long) (capacity * MAX_LOAD)) {
                    grow();
                }
                put(k, containers[i], offsets[i], lengths[i]);
            }
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /**
     * Points an indexed chunk at a new copy of its record, {@code length} bytes long (a copy
     * re-encoded by recompression is shorter); returns false if it is not indexed.
     */
    public boolean relocate(Fingerprint fp, int container, long offset, int length) {
        checkLocation(container, offset, length);
        long[] k = words(fp);
        lock.writeLock().lock();
        try {
            int s = find(k);
            if (s < 0) {
                return false;
            }
            containers[s] = container;
            offsets[s] = (int) offset;
            recordBytes += length - lengths[s];
            lengths[s] = length;
            return true;
        } finally {
            lock.writeLock().unlock();
        }
    }

    private static void checkLocation(int container, long offset, int length) {
        if (container <= 0 || offset < 0 || offset > 0xffffffffL || length <= 0) {
            throw new IllegalArgumentException("bad location " + container + "/" + offset + "/" + length);
        }
    }

    /** Removes chunks (those not indexed are ignored) and rebuilds the Bloom filter; returns how many went. */
    public int removeAll(Collection<Fingerprint> fps) {
        lock.writeLock().lock();
        try {
            int removed = 0;
            for (Fingerprint fp : fps) {
                int s = find(words(fp));
                if (s >= 0) {
                    deleteSlot(s);
                    removed++;
                }
            }
            if (removed > 0) {
                bloom = new BloomFilter((long) capacity * BLOOM_BITS_PER_SLOT);
                for (int s = 0; s < capacity; s++) {
                    if (containers[s] != 0) {
                        bloom.add(keys[4 * s + 1], keys[4 * s + 2]);
                    }
                }
            }
            return removed;
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** The slot holding {@code fp}, or -1. */
    public int slotOf(Fingerprint fp) {
        long[] k = words(fp);
        lock.readLock().lock();
        try {
            return find(k);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Number of slots (occupied or not); valid slot numbers are below it. */
    public int slotCount() {
        lock.readLock().lock();
        try {
            return capacity;
        } finally {
            lock.readLock().unlock();
        }
    }

    public Fingerprint fingerprintAt(int slot) {
        lock.readLock().lock();
        try {
            byte[] b = new byte[Fingerprint.LENGTH];
            for (int i = 0; i < 4; i++) {
                LONGS.set(b, 8 * i, keys[4 * slot + i]);
            }
            return Fingerprint.of(b);
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Visits every occupied slot in slot order, under the read lock. */
    public void forEach(SlotVisitor visitor) {
        lock.readLock().lock();
        try {
            for (int s = 0; s < capacity; s++) {
                if (containers[s] != 0) {
                    visitor.slot(s, containers[s], offsets[s] & 0xffffffffL, lengths[s]);
                }
            }
        } finally {
            lock.readLock().unlock();
        }
    }

    public int size() {
        lock.readLock().lock();
        try {
            return size;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Sum of the record lengths of every indexed chunk. */
    public long recordBytes() {
        lock.readLock().lock();
        try {
            return recordBytes;
        } finally {
            lock.readLock().unlock();
        }
    }

    /** Heap held by the table and the filter (array headers included). */
    public long memoryBytes() {
        lock.readLock().lock();
        try {
            return 16L + 8L * keys.length + 3 * (16L + 4L * capacity) + bloom.memoryBytes();
        } finally {
            lock.readLock().unlock();
        }
    }

    private int find(long[] k) {
        return bloom.mightContain(k[1], k[2]) ? probe(k) : -1;
    }

    /**
     * The table alone, without the filter: a snapshot's entries arrive in slot order, so their
     * probe runs are the slots just written, in the processor's cache, where the filter is not.
     */
    private int probe(long[] k) {
        int s = home(k[0]);
        while (containers[s] != 0) {
            int b = 4 * s;
            if (keys[b] == k[0] && keys[b + 1] == k[1] && keys[b + 2] == k[2] && keys[b + 3] == k[3]) {
                return s;
            }
            s = s + 1 == capacity ? 0 : s + 1;
        }
        return -1;
    }

    private void put(long[] k, int container, int offset, int length) {
        int s = home(k[0]);
        while (containers[s] != 0) {
            s = s + 1 == capacity ? 0 : s + 1;
        }
        System.arraycopy(k, 0, keys, 4 * s, 4);
        containers[s] = container;
        offsets[s] = offset;
        lengths[s] = length;
        size++;
        recordBytes += length;
        bloom.add(k[1], k[2]);
    }

    /** Backward-shift deletion keeps every probe run unbroken without tombstones. */
    private void deleteSlot(int slot) {
        size--;
        recordBytes -= lengths[slot];
        int hole = slot;
        int j = slot;
        while (true) {
            j = j + 1 == capacity ? 0 : j + 1;
            if (containers[j] == 0) {
                break;
            }
            int h = home(keys[4 * j]);
            boolean stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
            if (!stays) {
                System.arraycopy(keys, 4 * j, keys, 4 * hole, 4);
                containers[hole] = containers[j];
                offsets[hole] = offsets[j];
                lengths[hole] = lengths[j];
                hole = j;
            }
        }
        containers[hole] = 0;
    }

    private void grow() {
        long[] oldKeys = keys;
        int[] oldContainers = containers;
        int[] oldOffsets = offsets;
        int[] oldLengths = lengths;
        int oldCap = capacity;
        long newCap = oldCap + (oldCap >>> 1);
        if (newCap > Integer.MAX_VALUE / 4) {
            throw new IllegalStateException("the chunk index is full at " + size + " chunks");
        }
        allocate((int) newCap);
        long[] k = new long[4];
        for (int s = 0; s < oldCap; s++) {
            if (oldContainers[s] != 0) {
                System.arraycopy(oldKeys, 4 * s, k, 0, 4);
                put(k, oldContainers[s], oldOffsets[s], oldLengths[s]);
            }
        }
    }

    /** Maps the top bits of the first key word onto [0, capacity) without a modulo. */
    private int home(long k0) {
        return (int) (((k0 >>> 32) * capacity) >>> 32);
    }

    private static long[] words(Fingerprint fp) {
        byte[] b = new byte[Fingerprint.LENGTH];
        fp.copyTo(b, 0);
        return new long[] {(long) LONGS.get(b, 0), (long) LONGS.get(b, 8), (long) LONGS.get(b, 16), (long) LONGS.get(b, 24)};
    }
}
