package io.gpdedup.store.recipe;

import io.gpdedup.protocol.model.RetentionLock;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.Optional;

/**
 * Where a unit's recipe files are kept, by file name ({@link ObjectName#fileName}): a directory
 * ({@link RecipeDirectory}) or a bucket ({@code io.gpdedup.store.s3}). {@link RecipeCatalog} keeps
 * the in-memory list on top and serializes publishing and deleting.
 */
public interface RecipeStore {
    /**
     * A recipe written by {@link #stage} and not yet published; {@code location} is the store's
     * own; {@code lock} is the retention lock written into it, which the catalog lists.
     */
    record Staged(String name, String location, long length, long committedAtMillis, RetentionLock lock) {
        public Staged(String name, String location, long length, long committedAtMillis) {
            this(name, location, length, committedAtMillis, RetentionLock.NONE);
        }

        Staged withLock(RetentionLock newLock) {
            return new Staged(name, location, length, committedAtMillis, newLock);
        }
    }

    /**
     * Every stored object at open: name, file, length, commit time. A recipe that cannot be
     * decoded is listed damaged and named in {@code problems}.
     */
    List<RecipeCatalog.Entry> load(List<String> problems) throws IOException;

    /** The bytes of a recipe file; empty if there is none. */
    Optional<byte[]> read(String fileName) throws IOException;

    /**
     * Writes a recipe so that {@link #publish} can make it visible; callable in parallel. A store
     * that can (a bucket with Object Lock) holds it under {@code lock} itself.
     */
    Staged stage(String name, long committedAtMillis, long length, byte[] bytes, RetentionLock lock) throws IOException;

    /** Makes staged recipes durable and visible (replacing objects of the same names). */
    void publish(List<Staged> staged) throws IOException;

    /** Drops a staged recipe that will not be published. */
    void discard(Staged staged);

    /**
     * Durably removes recipe files; returns those the store's own retention still holds (a
     * bucket's Object Lock): they stay. {@code bypassGovernance}: a unit admin ended their
     * governance locks, and the store asks its storage to do the same (a bucket grants that only
     * to credentials allowed to bypass governance retention).
     */
    List<String> delete(List<String> fileNames, boolean bypassGovernance) throws IOException;

    /** The catalog changed; a store that keeps a checkpoint of the listing may save one. */
    default void changed(Collection<RecipeCatalog.Entry> entries, boolean closing) {
    }
}
