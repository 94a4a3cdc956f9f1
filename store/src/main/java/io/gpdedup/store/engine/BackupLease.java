package io.gpdedup.store.engine;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/**
 * One backup stream in flight. Every chunk it has been told is present, and every chunk it has put,
 * is protected from garbage collection until the lease is committed or closed; closing without a
 * commit abandons the object (nothing becomes visible).
 */
public interface BackupLease extends AutoCloseable {
    /** For each fingerprint, whether the unit lacks it; present ones are pinned for this lease. */
    boolean[] missing(Fingerprint[] fingerprints);

    /**
     * Appends a chunk. The payload must decode (per codec) to {@code rawLength} bytes whose SHA-256
     * is {@code fingerprint}. A chunk already present is accepted and not stored twice. The payload
     * is between the buffer's position and limit, which are left unchanged; it is not kept.
     */
    void put(Fingerprint fingerprint, Codec codec, int rawLength, ByteBuffer payload);

    /** As above, for the whole of {@code payload}. */
    default void put(Fingerprint fingerprint, Codec codec, int rawLength, byte[] payload) {
        put(fingerprint, codec, rawLength, ByteBuffer.wrap(payload));
    }

    /**
     * Makes {@code objectName} visible with this recipe once every chunk it references is durable
     * (fsyncs of concurrent commits are batched), with the retention lock {@code policy} asks for.
     * Completes exceptionally if a referenced chunk is neither stored nor pinned, if the store
     * cannot make it durable, or if an object of that name exists that may not be replaced: locked
     * ({@link io.gpdedup.store.recipe.ObjectsLockedException}) or, unless {@code policy} allows it,
     * any ({@link io.gpdedup.store.recipe.ObjectExistsException}). An existing object with the same
     * content counts as this commit, made.
     */
    CompletableFuture<Void> commit(String objectName, Recipe recipe, CommitPolicy policy);

    /** As above, unlocked and replacing an existing unlocked object of the same name. */
    default CompletableFuture<Void> commit(String objectName, Recipe recipe) {
        return commit(objectName, recipe, CommitPolicy.UNRESTRICTED);
    }

    @Override
    void close();
}
