package io.gpdedup.appliance;

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
import io.gpdedup.store.recipe.RecipeCatalog;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;

/**
 * A storage unit as one client connection sees it through the appliance (the server asks the
 * engine for the unit once per login): backups open a file and become write flows; chunk reads
 * are this connection's restore stream, a read flow that ends once it has been idle a while.
 * Everything else passes through untouched.
 */
final class ThrottledUnit implements StorageUnit {
    private final StorageUnit unit;
    private final Appliance appliance;
    private final Object readLock = new Object();
    private FlowScheduler.Flow readFlow;
    private int readsInProgress;
    private long lastReadNanos;
    private String restoring = "";

    ThrottledUnit(StorageUnit unit, Appliance appliance) {
        this.unit = unit;
        this.appliance = appliance;
    }

    @Override
    public String name() {
        return unit.name();
    }

    @Override
    public BackupLease beginBackup() {
        appliance.openFile();
        return new ThrottledBackupLease(unit.beginBackup(), appliance);
    }

    @Override
    public CompletableFuture<Void> sync() {
        return unit.sync();
    }

    @Override
    public Optional<Recipe> recipe(String objectName) {
        appliance.requestRoundTrip();
        Optional<Recipe> r = unit.recipe(objectName);
        synchronized (readLock) {
            restoring = objectName;
            if (readFlow != null) {
                appliance.scheduler.label(readFlow, objectName);
            }
        }
        return r;
    }

    @Override
    public StoredChunk read(Fingerprint fingerprint) {
        FlowScheduler.Flow flow;
        synchronized (readLock) {
            if (readFlow == null) {
                readFlow = appliance.scheduler.join(FlowScheduler.Kind.READ);
                appliance.scheduler.label(readFlow, restoring);
                appliance.reading(this);
            }
            flow = readFlow;
            readsInProgress++;
        }
        try {
            StoredChunk c = unit.read(fingerprint);
            appliance.move(flow, c.payload().length, c.rawLength(), 0);
            return c;
        } finally {
            synchronized (readLock) {
                readsInProgress--;
                lastReadNanos = appliance.clock.nanos();
            }
        }
    }

    /** Ends this connection's restore stream if no read has run for {@code idleNanos}. */
    void endReadIfIdle(long nowNanos, long idleNanos) {
        synchronized (readLock) {
            if (readFlow != null && readsInProgress == 0 && nowNanos - lastReadNanos >= idleNanos) {
                appliance.scheduler.leave(readFlow);
                readFlow = null;
                appliance.notReading(this);
            }
        }
    }

    @Override
    public List<ObjectInfo> list(String prefix) {
        return unit.list(prefix);
    }

    @Override
    public RecipeCatalog.Deleted deleteObjects(String prefix, boolean bypassGovernance) {
        return unit.deleteObjects(prefix, bypassGovernance);
    }

    @Override
    public RecipeCatalog.Deleted deleteObject(String objectName, boolean bypassGovernance) {
        return unit.deleteObject(objectName, bypassGovernance);
    }

    @Override
    public GcReport collectGarbage() {
        return unit.collectGarbage();
    }

    @Override
    public Recompression recompressNext(int zstdLevel, BooleanSupplier keepGoing) {
        return unit.recompressNext(zstdLevel, keepGoing);
    }

    @Override
    public int recompressionPending() {
        return unit.recompressionPending();
    }

    @Override
    public VerifyReport verify() {
        return unit.verify();
    }

    @Override
    public UnitStats stats() {
        return unit.stats();
    }
}
