package io.gpdedup.store.engine;

import io.gpdedup.store.container.DiskSpace;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The store engine on a local directory (layout in docs/format.md): one sub-directory per
 * storage unit. Opening takes an OS lock on the directory (one process at a time) and recovers
 * every existing unit, so a store killed at any moment restarts without manual repair.
 */
public final class DiskStoreEngine implements StoreEngine {
    private static final Pattern UNIT_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");

    private final Path dataDir;
    private final EngineSettings settings;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final DiskSpace space;
    private final Map<String, DiskStorageUnit> units = new ConcurrentHashMap<>();
    private volatile boolean closed;

    private DiskStoreEngine(Path dataDir, EngineSettings settings, FileChannel lockChannel, FileLock lock, DiskSpace space) {
        this.dataDir = dataDir;
        this.settings = settings;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.space = space;
    }

    /** Opens with {@link EngineSettings#defaults()}. */
    public static DiskStoreEngine open(Path dataDir) {
        return open(dataDir, EngineSettings.defaults());
    }

    /** Opens (creating) a data directory and recovers every unit in it. */
    public static DiskStoreEngine open(Path dataDir, EngineSettings settings) {
        Path dir = dataDir.toAbsolutePath();
        FileChannel ch = null;
        try {
            Files.createDirectories(dir.resolve("units"));
            ch = FileChannel.open(dir.resolve("store.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = ch.tryLock();
            } catch (OverlappingFileLockException e) {
                lock = null;
            }
            if (lock == null) {
                throw new StoreException("data directory " + dir + " is in use by another store");
            }
            DiskStoreEngine engine = new DiskStoreEngine(dir, settings, ch, lock, DiskSpace.of(dir, settings.diskReserveBytes()));
            try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir.resolve("units"))) {
                for (Path p : ds) {
                    String name = p.getFileName().toString();
                    if (Files.isDirectory(p) && UNIT_NAME.matcher(name).matches()) {
                        engine.units.put(name, DiskStorageUnit.open(name, p, settings, engine.space));
                    }
                }
            } catch (IOException | RuntimeException e) {
                engine.close();
                throw e;
            }
            return engine;
        } catch (IOException e) {
            closeQuietly(ch);
            throw new StoreException("cannot open data directory " + dir + ": " + e, e);
        } catch (RuntimeException e) {
            closeQuietly(ch);
            throw e;
        }
    }

    public EngineSettings settings() {
        return settings;
    }

    @Override
    public StorageUnit unit(String name) {
        DiskStorageUnit u = units.get(name);
        if (u != null) {
            return u;
        }
        if (name == null || !UNIT_NAME.matcher(name).matches()) {
            throw new StoreException("invalid storage unit name '" + name + "': use 1 to 64 of A-Z a-z 0-9 _ . -, not starting with . or -");
        }
        synchronized (this) {
            if (closed) {
                throw new StoreException("the store is closed");
            }
            u = units.get(name);
            if (u == null) {
                try {
                    u = DiskStorageUnit.open(name, dataDir.resolve("units").resolve(name), settings, space);
                } catch (IOException e) {
                    throw new StoreException("cannot open storage unit " + name + ": " + e, e);
                }
                units.put(name, u);
            }
            return u;
        }
    }

    @Override
    public Set<String> unitNames() {
        return Collections.unmodifiableSet(new TreeSet<>(units.keySet()));
    }

    @Override
    public Path dataDirectory() {
        return dataDir;
    }

    /** Finishes pending commits, saves every unit's index snapshot, releases the directory lock. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (DiskStorageUnit u : units.values()) {
            u.close();
        }
        try {
            lock.release();
        } catch (IOException e) {
            // The lock goes with the channel below anyway.
        }
        closeQuietly(lockChannel);
    }

    private static void closeQuietly(FileChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException e) {
                // Nothing left to protect: the lock is released with the channel.
            }
        }
    }
}
