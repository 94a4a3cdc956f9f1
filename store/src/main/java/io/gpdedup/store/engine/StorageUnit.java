package io.gpdedup.store.engine;

import io.gpdedup.store.chunk.Fingerprint;
import io.gpdedup.store.chunk.ObjectInfo;
import io.gpdedup.store.chunk.Recipe;
import io.gpdedup.store.chunk.StoredChunk;
import io.gpdedup.store.report.GcReport;
import io.gpdedup.store.report.UnitStats;
import io.gpdedup.store.report.VerifyReport;
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

    Optional<Recipe> recipe(String objectName);

    /** Reads a chunk; throws {@link StoreException} if it is missing or its record fails its checksum. */
    StoredChunk read(Fingerprint fingerprint);

    /**
     * The chunk for a client that takes regions: as stored, or as its place in the region holding
     * it, which the client decodes once for all the chunks it asked for there.
     */
    default Served serve(Fingerprint fingerprint) {
        return new Served.Whole(read(fingerprint));
    }

    /** Objects whose names start with {@code prefix} (empty = all), sorted by name. */
    List<ObjectInfo> list(String prefix);

    /** Removes objects whose names start with {@code prefix}; returns how many. Chunks go at the next GC. */
    int deleteObjects(String prefix);

    /** Removes exactly the object {@code objectName}; returns whether it existed. */
    boolean deleteObject(String objectName);

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
