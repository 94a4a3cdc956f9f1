package io.gpdedup.store.engine;

import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.recipe.RecipeCatalog;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/** One tenant's namespace: its own chunks, index and recipes. Thread-safe. */
public interface StorageUnit {
    String name();

    BackupLease beginBackup();

    /**
     * Completes once every chunk this unit held when it was called is on disk (fsynced), so a
     * backup can drop its copies of chunks it put or was told are present before its commit.
     */
    CompletableFuture<Void> sync();

    /**
     * As {@link #sync}, but every such chunk is in the unit's lasting storage (a bucket unit seals
     * and uploads the containers that hold them, as a commit does), not just a spool that dies with
     * this host.
     */
    default CompletableFuture<Void> syncUploaded() {
        return sync();
    }

    /** Whether {@link #sync} leaves chunks in a spool that dies with this host (a bucket unit). */
    default boolean syncSpoolOnly() {
        return false;
    }

    Optional<Recipe> recipe(String objectName);

    /** Reads a chunk; throws {@link StoreException} if it is missing or its record fails its checksum. */
    StoredChunk read(Fingerprint fingerprint);

    /** Objects whose names start with {@code prefix} (empty = all), sorted by name. */
    List<ObjectInfo> list(String prefix);

    /**
     * Removes the objects whose names start with {@code prefix}; their chunks go at the next GC.
     * Removes none when any of them is under a retention lock that holds it back ({@link
     * io.gpdedup.store.recipe.ObjectsLockedException}): every lock does, but a governance lock
     * yields to {@code bypassGovernance}.
     */
    RecipeCatalog.Deleted deleteObjects(String prefix, boolean bypassGovernance);

    /** Removes exactly the object {@code objectName}, if there is one, as {@link #deleteObjects(String, boolean)}. */
    RecipeCatalog.Deleted deleteObject(String objectName, boolean bypassGovernance);

    /** Removes objects whose names start with {@code prefix}, none locked; returns how many. */
    default int deleteObjects(String prefix) {
        return deleteObjects(prefix, false).objects();
    }

    /** Removes exactly the object {@code objectName}, not locked; returns whether it existed. */
    default boolean deleteObject(String objectName) {
        return deleteObject(objectName, false).objects() > 0;
    }

    GcReport collectGarbage();

    /**
     * Re-encodes the next container written since the unit opened with zstd at {@code zstdLevel},
     * if that saves enough bytes, while {@code keepGoing} holds (checked between chunks). Safe
     * while backups run, but meant for when none does: it takes the unit's write lock only to swap
     * the copy in. Callers on several threads each get a container of their own.
     */
    Recompression recompressNext(int zstdLevel, BooleanSupplier keepGoing);

    /** Containers written since the unit opened that {@link #recompressNext} has not settled yet. */
    int recompressionPending();

    /** Re-reads and re-hashes every chunk, checks every recipe resolves and every stream hash. */
    VerifyReport verify();

    UnitStats stats();
}
