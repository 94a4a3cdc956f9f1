package io.gpdedup.store.engine;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * A backup stream's lease on a {@link DedupStorageUnit}. Its pins (chunks it was told are present,
 * chunks it put, chunks its commit references) keep garbage collection off those chunks until the
 * lease is closed; they are guarded by the unit's write lock.
 */
final class DedupBackupLease implements BackupLease {
    private final DedupStorageUnit unit;
    private final Set<Fingerprint> pins = new HashSet<>();
    private volatile boolean closed;

    DedupBackupLease(DedupStorageUnit unit) {
        this.unit = unit;
    }

    @Override
    public boolean[] missing(Fingerprint[] fingerprints) {
        checkOpen();
        return unit.missing(this, fingerprints);
    }

    @Override
    public void put(Fingerprint fingerprint, Codec codec, int rawLength, ByteBuffer payload) {
        checkOpen();
        unit.put(this, fingerprint, codec, rawLength, payload);
    }

    @Override
    public CompletableFuture<Void> commit(String objectName, Recipe recipe, CommitPolicy policy) {
        if (closed) {
            return CompletableFuture.failedFuture(new StoreException("the backup lease is closed"));
        }
        return unit.commit(this, objectName, recipe, policy);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            unit.release(this);
        }
    }

    boolean isClosed() {
        return closed;
    }

    /** Callers hold the unit's write lock. */
    void pin(Fingerprint fp) {
        pins.add(fp);
    }

    /** Callers hold the unit's write lock. */
    Set<Fingerprint> pins() {
        return pins;
    }

    private void checkOpen() {
        if (closed) {
            throw new StoreException("the backup lease is closed");
        }
    }
}
