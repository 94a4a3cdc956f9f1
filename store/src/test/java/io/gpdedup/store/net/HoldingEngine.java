package io.gpdedup.store.net;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.engine.BackupLease;
import io.gpdedup.store.engine.Recompression;
import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.engine.StoreEngine;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.function.BooleanSupplier;

/**
 * A real engine whose commits do not become durable until the test says so: the commit call
 * returns at once, its future completes (with the real commit's outcome) on {@link #release}.
 */
public final class HoldingEngine implements StoreEngine {
    public final CountDownLatch commitStarted = new CountDownLatch(1);
    private final CompletableFuture<Void> released = new CompletableFuture<>();
    private final StoreEngine real;

    public HoldingEngine(StoreEngine real) {
        this.real = real;
    }

    public void release() {
        released.complete(null);
    }

    @Override
    public StorageUnit unit(String name) {
        StorageUnit u = real.unit(name);
        return new StorageUnit() {
            @Override
            public String name() {
                return u.name();
            }

            @Override
            public BackupLease beginBackup() {
                BackupLease l = u.beginBackup();
                return new BackupLease() {
                    @Override
                    public boolean[] missing(Fingerprint[] fingerprints) {
                        return l.missing(fingerprints);
                    }

                    @Override
                    public void put(Fingerprint fingerprint, Codec codec, int rawLength, java.nio.ByteBuffer payload) {
                        l.put(fingerprint, codec, rawLength, payload);
                    }

                    @Override
                    public CompletableFuture<Void> commit(String objectName, Recipe recipe, io.gpdedup.store.engine.CommitPolicy policy) {
                        commitStarted.countDown();
                        return released.thenCompose(v -> l.commit(objectName, recipe, policy));
                    }

                    @Override
                    public void close() {
                        l.close();
                    }
                };
            }

            @Override
            public CompletableFuture<Void> sync() {
                return u.sync();
            }

            @Override
            public Optional<Recipe> recipe(String objectName) {
                return u.recipe(objectName);
            }

            @Override
            public StoredChunk read(Fingerprint fingerprint) {
                return u.read(fingerprint);
            }

            @Override
            public List<ObjectInfo> list(String prefix) {
                return u.list(prefix);
            }

            @Override
            public io.gpdedup.store.recipe.RecipeCatalog.Deleted deleteObjects(String prefix, boolean bypassGovernance) {
                return u.deleteObjects(prefix, bypassGovernance);
            }

            @Override
            public io.gpdedup.store.recipe.RecipeCatalog.Deleted deleteObject(String objectName, boolean bypassGovernance) {
                return u.deleteObject(objectName, bypassGovernance);
            }

            @Override
            public GcReport collectGarbage() {
                return u.collectGarbage();
            }

            @Override
            public Recompression recompressNext(int zstdLevel, BooleanSupplier keepGoing) {
                return u.recompressNext(zstdLevel, keepGoing);
            }

            @Override
            public int recompressionPending() {
                return u.recompressionPending();
            }

            @Override
            public VerifyReport verify() {
                return u.verify();
            }

            @Override
            public UnitStats stats() {
                return u.stats();
            }
        };
    }

    @Override
    public Set<String> unitNames() {
        return real.unitNames();
    }

    @Override
    public Path dataDirectory() {
        return real.dataDirectory();
    }

    @Override
    public void close() {
        real.close();
    }
}
