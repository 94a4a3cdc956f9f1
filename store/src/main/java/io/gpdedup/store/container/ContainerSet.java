package io.gpdedup.store.container;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The containers of one unit: which exist, which one takes appends, which have writes not yet
 * fsynced. Appends, rollovers and removals are serialized by the caller (the unit's write lock);
 * lookups by id and reads are safe from any thread.
 */
public final class ContainerSet implements Closeable {
    /** Where an appended record went. */
    public record Placement(int container, long offset) {
    }

    /** Containers to fsync, and whether the directory needs one (a container was created). */
    public record Dirty(List<Container> containers, boolean directory) {
    }

    private final Path dir;
    private final long containerSize;
    private final long capacity;
    private final DiskSpace space;
    private final Map<Integer, Container> byId = new ConcurrentHashMap<>();
    private final AtomicLong totalBytes = new AtomicLong();
    private Container active;
    private int nextId = 1;
    private final Set<Container> dirty = new HashSet<>(); // guarded by this
    private boolean dirDirty; // guarded by this

    private ContainerSet(Path dir, long containerSize, long capacity, DiskSpace space) {
        this.dir = dir;
        this.containerSize = containerSize;
        this.capacity = capacity;
        this.space = space;
    }

    /**
     * Opens every container in {@code dir} (creating the directory). Leftover temp files and
     * containers too short to hold a record (created, then a crash before the header was whole)
     * are deleted. A container with a damaged header is opened all the same: its records do not
     * need it ({@link Container#problemAtOpen()}). New chunk data must leave {@code space}'s
     * reserve free.
     */
    public static ContainerSet open(Path dir, long containerSize, long capacity, DiskSpace space) throws IOException {
        OwnerOnly.createDirectories(dir);
        ContainerSet set = new ContainerSet(dir, containerSize, capacity, space);
        boolean changed = false;
        int maxId = 0;
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                String f = p.getFileName().toString();
                int id = Container.idOf(f);
                if (f.endsWith(".tmp")) {
                    Files.deleteIfExists(p);
                    changed = true;
                    continue;
                }
                if (id < 0) {
                    continue;
                }
                maxId = Math.max(maxId, id);
                if (Files.size(p) < Container.HEADER_BYTES && !Container.isEmptyV1(Files.readAllBytes(p), id)) {
                    Files.delete(p);
                    changed = true;
                    continue;
                }
                set.byId.put(id, Container.open(p, id));
            }
        }
        set.nextId = maxId + 1;
        set.recount();
        if (changed) {
            FileSync.syncDirectory(dir);
        }
        return set;
    }

    public Path directory() {
        return dir;
    }

    public DiskSpace space() {
        return space;
    }

    public Container get(int id) {
        return byId.get(id);
    }

    /** Every open container, by id. */
    public List<Container> all() {
        List<Container> list = new ArrayList<>(byId.values());
        list.sort(Comparator.comparingInt(Container::id));
        return list;
    }

    public int count() {
        return byId.size();
    }

    /** Bytes in every container file. */
    public long totalBytes() {
        return totalBytes.get();
    }

    /** Re-adds the sizes after recovery truncated torn tails. */
    public void recount() {
        long sum = 0;
        for (Container c : byId.values()) {
            sum += c.size();
        }
        totalBytes.set(sum);
    }

    /** Makes {@code c} the container that takes appends (used after recovery to keep filling the last one). */
    public void resume(Container c) {
        if (c.size() < containerSize) {
            active = c;
        }
    }

    /** The id of the container taking appends, or 0 if the next append starts a new one. */
    int activeId() {
        return active == null ? 0 : active.id();
    }

    /**
     * Appends a record to the active container, rolling over when it is full. Refused, with
     * nothing written, past the unit's capacity ({@link CapacityExceededException}) or into the
     * disk reserve ({@link DiskFullException}).
     */
    public Placement append(byte[] record) throws IOException {
        return append(java.nio.ByteBuffer.wrap(record));
    }

    /** As {@link #append(byte[])}, for the record between {@code record}'s position and limit. */
    public Placement append(java.nio.ByteBuffer record) throws IOException {
        int length = record.remaining();
        boolean roll = active == null || (active.size() + length > containerSize && active.size() > active.dataStart());
        long growth = length + (roll ? Container.HEADER_BYTES : 0);
        if (capacity > 0 && totalBytes() + growth > capacity) {
            throw new CapacityExceededException("needs " + growth + " more bytes, " + totalBytes() + " of " + capacity + " used");
        }
        space.claim(growth);
        if (roll) {
            active = create();
        }
        long offset = active.append(record);
        totalBytes.addAndGet(length);
        synchronized (this) {
            dirty.add(active);
        }
        return new Placement(active.id(), offset);
    }

    /** A new, empty container that is not the active one (garbage collection copies into it). */
    public Container create() throws IOException {
        Container c = Container.create(dir, nextId++);
        byId.put(c.id(), c);
        totalBytes.addAndGet(c.size());
        synchronized (this) {
            dirDirty = true;
            dirty.add(c);
        }
        return c;
    }

    /** Stops appending to the current container; the next append starts a new one. */
    public void seal() {
        active = null;
    }

    /** Takes (and clears) the set of containers written since their last fsync. */
    public synchronized Dirty takeDirty() {
        Dirty d = new Dirty(new ArrayList<>(dirty), dirDirty);
        dirty.clear();
        dirDirty = false;
        return d;
    }

    /** The containers written since their last fsync, left marked dirty (the syncer still owns them). */
    public synchronized Dirty peekDirty() {
        return new Dirty(new ArrayList<>(dirty), dirDirty);
    }

    /** Puts back what a failed fsync did not make durable. */
    public synchronized void returnDirty(Dirty d) {
        dirty.addAll(d.containers());
        dirDirty |= d.directory();
    }

    /** Fsyncs the given containers and, if asked, the directory. Removed containers are skipped. */
    public void sync(Dirty d) throws IOException {
        for (Container c : d.containers()) {
            if (byId.get(c.id()) != c) {
                continue; // removed by garbage collection, which fsynced its live records elsewhere
            }
            try {
                c.force();
            } catch (ClosedChannelException e) {
                if (byId.get(c.id()) == c) {
                    throw e;
                }
            }
        }
        if (d.directory()) {
            FileSync.syncDirectory(dir);
        }
    }

    /** Closes and deletes a container; the caller fsyncs the directory. */
    public void remove(int id) throws IOException {
        Container c = byId.remove(id);
        if (c == null) {
            return;
        }
        if (active == c) {
            active = null;
        }
        synchronized (this) {
            dirty.remove(c);
        }
        totalBytes.addAndGet(-c.size());
        c.close();
        Files.deleteIfExists(c.path());
    }

    /** Ids that exist and how long each is: what an index snapshot covers once they are fsynced. */
    public Map<Integer, Long> lengths() {
        Map<Integer, Long> m = new TreeMap<>();
        for (Container c : byId.values()) {
            m.put(c.id(), c.size());
        }
        return m;
    }

    @Override
    public void close() throws IOException {
        IOException first = null;
        for (Container c : byId.values()) {
            try {
                c.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
