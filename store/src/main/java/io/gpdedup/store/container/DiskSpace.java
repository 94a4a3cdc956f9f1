package io.gpdedup.store.container;

import java.io.IOException;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The free space of the file system under a data directory, and the reserve that new chunk data
 * must leave free: deleting and garbage collection (which copies live records before it frees
 * their old containers), recipes and fsyncs then still have room when backups have filled the
 * disk. Shared by every unit of an engine.
 */
public final class DiskSpace {
    /** Far above the reserve the free space is read again only this often. */
    private static final long RECHECK_NANOS = 1_000_000_000L;
    /** Closer than this to the reserve, every claim reads the free space. */
    private static final long NEAR_BYTES = 64L << 20;

    private final Path dir;
    private final FileStore store;
    private final long reserve;
    private long usableAtCheck; // guarded by this
    private long claimedSinceCheck; // guarded by this
    private long checkedAt; // guarded by this
    private boolean checked; // guarded by this

    private DiskSpace(Path dir, FileStore store, long reserve) {
        this.dir = dir;
        this.store = store;
        this.reserve = reserve;
    }

    /** The file system holding {@code dir}, which must exist; {@code reserveBytes} 0 turns the reserve off. */
    public static DiskSpace of(Path dir, long reserveBytes) throws IOException {
        if (reserveBytes < 0) {
            throw new IllegalArgumentException("the disk reserve must not be negative");
        }
        return new DiskSpace(dir, Files.getFileStore(dir), reserveBytes);
    }

    public long reserve() {
        return reserve;
    }

    /** Bytes this process may still write on the file system, read now. */
    public synchronized long usable() throws IOException {
        refresh(System.nanoTime());
        return usableAtCheck;
    }

    /**
     * Accounts for a write of new chunk data; throws {@link DiskFullException} (and writes
     * nothing) when it would leave less than the reserve free.
     */
    public synchronized void claim(long bytes) throws IOException {
        if (reserve == 0) {
            return;
        }
        long now = System.nanoTime();
        if (!checked || now - checkedAt > RECHECK_NANOS || usableAtCheck - claimedSinceCheck - bytes < reserve + NEAR_BYTES) {
            refresh(now);
        }
        long left = usableAtCheck - claimedSinceCheck;
        if (left - bytes < reserve) {
            throw new DiskFullException("store disk full: " + mib(Math.max(0, left)) + " free in " + dir + ", and new chunk data must leave "
                    + mib(reserve) + " (disk-reserve-bytes) for deletes, garbage collection and commits; delete old backups, then run"
                    + " gpdedup-store gc");
        }
        claimedSinceCheck += bytes;
    }

    /** Whether {@code bytes} more would still leave the reserve free (for optional writes such as the index snapshot). */
    public synchronized boolean fitsAboveReserve(long bytes) throws IOException {
        refresh(System.nanoTime());
        return usableAtCheck - bytes >= reserve;
    }

    private void refresh(long now) throws IOException {
        usableAtCheck = store.getUsableSpace();
        claimedSinceCheck = 0;
        checkedAt = now;
        checked = true;
    }

    static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.2f MiB", bytes / 1048576.0);
    }
}
