package io.gpdedup.store.engine;

import java.io.Closeable;
import java.nio.file.Path;
import java.util.Set;

/**
 * A data directory holding storage units. Opening replays what is on disk (rebuilding the index
 * from container scans if it must), so a store killed at any moment restarts without manual repair.
 */
public interface StoreEngine extends Closeable {
    /** The unit, created (empty) on first use. */
    StorageUnit unit(String name);

    Set<String> unitNames();

    Path dataDirectory();

    @Override
    void close();
}
