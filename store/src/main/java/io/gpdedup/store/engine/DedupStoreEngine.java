package io.gpdedup.store.engine;

import io.gpdedup.store.container.OwnerOnly;
import io.gpdedup.store.crypt.Kek;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The store engine: a local data directory, which it locks (one process at a time), and a
 * {@link UnitBackend} that keeps the units: sub-directories of the data directory by default
 * (docs/format.md), or a bucket (docs/s3.md). Opening recovers every existing unit, so a store
 * killed at any moment restarts without manual repair.
 */
public final class DedupStoreEngine implements StoreEngine {
    /** The file in a data directory whose lock the store using it holds. */
    public static final String LOCK_FILE = "store.lock";

    private static final Pattern UNIT_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}");

    private final Path dataDir;
    private final EngineSettings settings;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final UnitBackend backend;
    private final Map<String, DedupStorageUnit> units = new ConcurrentHashMap<>();
    /** Null unless the store runs as a standby: then the units another store holds wait here. */
    private final StandbyUnits standby;
    private volatile boolean closed;

    private DedupStoreEngine(Path dataDir, EngineSettings settings, FileChannel lockChannel, FileLock lock, UnitBackend backend, boolean standby) {
        this.dataDir = dataDir;
        this.settings = settings;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.backend = backend;
        this.standby = standby ? new StandbyUnits(name -> DedupStorageUnit.open(name, settings, backend.openUnit(name)), this::adopt) : null;
    }

    /** Opens with {@link EngineSettings#defaults()}. */
    public static DedupStoreEngine open(Path dataDir) {
        return open(dataDir, EngineSettings.defaults());
    }

    /** Opens (creating) a data directory and recovers every unit in it. */
    public static DedupStoreEngine open(Path dataDir, EngineSettings settings) {
        return open(dataDir, settings, LocalBackend::open);
    }

    /**
     * As {@link #open(Path, EngineSettings)}, with units encrypted at rest under data keys that
     * {@code kek} wraps (docs/format.md section 9); {@link io.gpdedup.store.crypt.KeyException}
     * before any unit is touched when the key does not open one.
     */
    public static DedupStoreEngine open(Path dataDir, EngineSettings settings, Kek kek) {
        return open(dataDir, settings, (dir, s) -> LocalBackend.open(dir, s, kek));
    }

    /**
     * Opens (creating) a data directory, then the backend that keeps the units, and recovers every
     * unit the backend already has.
     */
    public static DedupStoreEngine open(Path dataDir, EngineSettings settings, UnitBackend.Factory backends) {
        return open(dataDir, settings, backends, false);
    }

    /**
     * As {@link #open(Path, EngineSettings, UnitBackend.Factory)}; with {@code standby}, a unit
     * another store holds ({@link UnitHeldException}) does not fail its opening: it waits in
     * {@link StandbyUnits} until that store's lease lapses, and {@link #unit} refuses it meanwhile
     * with {@link UnitNotServedException}.
     */
    public static DedupStoreEngine open(Path dataDir, EngineSettings settings, UnitBackend.Factory backends, boolean standby) {
        Path dir = dataDir.toAbsolutePath();
        FileChannel ch = null;
        UnitBackend backend = null;
        try {
            OwnerOnly.createDirectories(dir);
            OwnerOnly.tighten(dir, "data directory");
            ch = OwnerOnly.open(dir.resolve(LOCK_FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            FileLock lock = tryLock(ch);
            if (lock == null) {
                throw new StoreException("data directory " + dir + " is in use by another store");
            }
            backend = backends.open(dir, settings);
            DedupStoreEngine engine = new DedupStoreEngine(dir, settings, ch, lock, backend, standby);
            try {
                for (String name : backend.existingUnits()) {
                    engine.units.put(name, DedupStorageUnit.open(name, settings, backend.openUnit(name)));
                }
            } catch (IOException | RuntimeException e) {
                engine.close();
                throw e;
            }
            return engine;
        } catch (IOException e) {
            closeQuietly(backend);
            closeQuietly(ch);
            throw new StoreException("cannot open data directory " + dir + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            closeQuietly(backend);
            closeQuietly(ch);
            throw e;
        }
    }

    static boolean isUnitName(String name) {
        return name != null && UNIT_NAME.matcher(name).matches();
    }

    public EngineSettings settings() {
        return settings;
    }

    @Override
    public StorageUnit unit(String name) {
        DedupStorageUnit u = units.get(name);
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
                UnitNotServedException waiting = standby == null ? null : standby.notServed(name);
                if (waiting != null) {
                    throw waiting;
                }
                try {
                    u = DedupStorageUnit.open(name, settings, backend.openUnit(name));
                } catch (UnitHeldException e) {
                    if (standby == null) {
                        throw e;
                    }
                    standby.add(name, e);
                    throw standby.notServed(name);
                } catch (IOException e) {
                    throw new StoreException("cannot open storage unit " + name + ": " + e.getMessage(), e);
                }
                units.put(name, u);
            }
            return u;
        }
    }

    /** A unit the standby took over; false when the engine closed meanwhile. */
    private synchronized boolean adopt(String name, DedupStorageUnit unit) {
        if (closed) {
            return false;
        }
        units.put(name, unit);
        return true;
    }

    /** The units waiting for another store's lease to lapse, when the store runs as a standby. */
    public Optional<StandbyUnits> standby() {
        return Optional.ofNullable(standby);
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
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        if (standby != null) {
            standby.close(); // outside the lock: a take-over in progress needs it to learn that the engine closed
        }
        closeUnits();
    }

    private synchronized void closeUnits() {
        for (DedupStorageUnit u : units.values()) {
            u.close();
        }
        closeQuietly(backend);
        try {
            lock.release();
        } catch (IOException e) {
            // The lock goes with the channel below anyway.
        }
        closeQuietly(lockChannel);
    }

    /** Where the units live, for logs. */
    public String describe() {
        return backend.describe();
    }

    /** What keeps the units (for metrics and tests: a bucket's request counts). */
    public UnitBackend backend() {
        return backend;
    }

    private static void closeQuietly(java.io.Closeable c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                // Nothing left to protect: the lock is released with the channel, the backend holds no data.
            }
        }
    }

    /** The lock of a data directory's {@link #LOCK_FILE}, or null while another store (in this process or another) holds it. */
    public static FileLock tryLock(FileChannel lockFile) throws IOException {
        try {
            return lockFile.tryLock();
        } catch (OverlappingFileLockException e) {
            return null;
        }
    }
}
