package io.gpdedup.appliance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** What each request costs on the appliance, on a virtual clock (nothing waits for real). */
class ThrottledBackupLeaseTest {
    private final ApplianceProfile profile = ApplianceProfileTest.seed();
    private final VirtualClock clock = new VirtualClock();
    private final Appliance appliance = new Appliance(profile, FlowTrace.NONE, clock, false);
    private final RecordingUnit engineUnit = new RecordingUnit();
    private final ThrottledUnit unit = new ThrottledUnit(engineUnit, appliance);

    private double live(double mbps) {
        return profile.liveBytesPerSecond(mbps);
    }

    private static Fingerprint fp(int i) {
        byte[] b = new byte[Fingerprint.LENGTH];
        b[0] = (byte) i;
        b[1] = (byte) (i >> 8);
        return Fingerprint.of(b);
    }

    @Test
    void beginBackupOpensAFile() {
        long t0 = clock.now;
        unit.beginBackup();
        assertEquals((profile.fileOpenLatency().toNanos() + profile.namespaceOpCost().toNanos()) / 1e9, clock.seconds(t0), 1e-9);
    }

    @Test
    void rawStreamPaysOnlyTheWire() {
        BackupLease lease = unit.beginBackup();
        long t0 = clock.now;
        lease.put(fp(1), Codec.NONE, 100_000, new byte[100_000]);
        assertEquals(100_000 / live(profile.streamCapMBps(1)), clock.seconds(t0), 1e-6);
        assertEquals(1, engineUnit.puts.size(), "the chunk reached the engine");
    }

    @Test
    void dedupStreamPaysClientWorkLookupAndWireForCompressedBytes() {
        BackupLease lease = unit.beginBackup();
        lease.missing(new Fingerprint[] {fp(1)});
        long t0 = clock.now;
        lease.put(fp(1), Codec.ZSTD, 100_000, new byte[40_000]);
        double expected = 100_000 * appliance.clientSecondsPerByte() + 100_000 / live(profile.lookupCapacityMBps())
                + 40_000 / live(profile.streamCapMBps(1));
        assertEquals(expected, clock.seconds(t0), 1e-6);
        assertEquals(expected, 100_000 / live(profile.pluginStreamCapMBps(1)) - 60_000 / live(profile.streamCapMBps(1))
                + 100_000 / live(profile.lookupCapacityMBps()), 1e-6, "for incompressible data: the profile's plugin stream cap");
    }

    @Test
    void duplicatesCostLookupAndClientWorkAtCommitButNoTransfer() {
        BackupLease lease = unit.beginBackup();
        lease.missing(new Fingerprint[] {fp(1), fp(2)});
        lease.put(fp(1), Codec.NONE, 1000, new byte[1000]);
        long t0 = clock.now;
        lease.commit("o", new Recipe(List.of(new ChunkRef(fp(1), 1000), new ChunkRef(fp(2), 50_000)), 51_000, fp(3).toBytes()));
        double expected = 50_000 * appliance.clientSecondsPerByte() + 50_000 / live(profile.lookupCapacityMBps())
                + (profile.fileCloseLatency().toNanos() + profile.namespaceOpCost().toNanos() + profile.requestLatency().toNanos()) / 1e9;
        assertEquals(expected, clock.seconds(t0), 1e-6);
        assertEquals(List.of("o"), engineUnit.committed);
    }

    @Test
    void duplicatesAreChargedWhenReportedPresentAndSetRightAtCommit() {
        engineUnit.present = true;
        BackupLease lease = unit.beginBackup();
        long t0 = clock.now;
        lease.missing(new Fingerprint[] {fp(1), fp(2)});
        double perByte = appliance.clientSecondsPerByte() + 1 / live(profile.lookupCapacityMBps());
        assertEquals(2 * 64 * 1024 * perByte, clock.seconds(t0), 1e-6, "two chunks of the default mean size");
        t0 = clock.now;
        lease.commit("o", new Recipe(List.of(new ChunkRef(fp(1), 100_000), new ChunkRef(fp(2), 100_000)), 200_000, fp(3).toBytes()));
        double fixed = (profile.fileCloseLatency().toNanos() + profile.namespaceOpCost().toNanos() + profile.requestLatency().toNanos()) / 1e9;
        assertEquals((200_000 - 2 * 64 * 1024) * perByte + fixed, clock.seconds(t0), 1e-6, "the rest of the duplicates at commit");
        assertEquals(100_000, appliance.meanChunkBytes(), 1e-9, "the next estimate comes from what was committed");
    }

    @Test
    void rawStreamsOpenTogetherFormOnePool() {
        List<BackupLease> leases = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            leases.add(unit.beginBackup());
        }
        leases.get(0).put(fp(1), Codec.NONE, 10, new byte[10]);
        FlowScheduler.Flow f = appliance.scheduler.flows().get(0);
        assertEquals(5, f.poolStreams);
        assertEquals(live(profile.streamCapMBps(5)), f.rate(), 1e-6);
        leases.forEach(BackupLease::close);
        assertTrue(appliance.scheduler.flows().isEmpty(), "closed leases leave the link");
    }

    @Test
    void readsAreARestoreStreamThatEndsWhenIdle() {
        engineUnit.chunk = new StoredChunk(Codec.NONE, 30_000, new byte[30_000]);
        unit.recipe("restored/object");
        long t0 = clock.now;
        unit.read(fp(1));
        assertEquals(30_000 / live(profile.streamReadCapMBps()), clock.seconds(t0) - 0, 1e-6);
        assertEquals(1, appliance.scheduler.flows().size());
        assertEquals("restored/object", appliance.scheduler.flows().get(0).label);
        clock.advanceSeconds(1);
        appliance.endIdleReads();
        assertTrue(appliance.scheduler.flows().isEmpty());
    }

    /** An engine unit that records what reached it. */
    static final class RecordingUnit implements StorageUnit {
        final List<Fingerprint> puts = new ArrayList<>();
        final List<String> committed = new ArrayList<>();
        StoredChunk chunk;
        boolean present;

        @Override
        public String name() {
            return "u";
        }

        @Override
        public CompletableFuture<Void> sync() {
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public BackupLease beginBackup() {
            return new BackupLease() {
                @Override
                public boolean[] missing(Fingerprint[] fingerprints) {
                    boolean[] m = new boolean[fingerprints.length];
                    java.util.Arrays.fill(m, !present);
                    return m;
                }

                @Override
                public void put(Fingerprint fingerprint, Codec codec, int rawLength, java.nio.ByteBuffer payload) {
                    puts.add(fingerprint);
                }

                @Override
                public CompletableFuture<Void> commit(String objectName, Recipe recipe, io.gpdedup.store.engine.CommitPolicy policy) {
                    committed.add(objectName);
                    return CompletableFuture.completedFuture(null);
                }

                @Override
                public void close() {
                }
            };
        }

        @Override
        public Optional<Recipe> recipe(String objectName) {
            return Optional.empty();
        }

        @Override
        public StoredChunk read(Fingerprint fingerprint) {
            return chunk;
        }

        @Override
        public List<ObjectInfo> list(String prefix) {
            return List.of();
        }

        @Override
        public io.gpdedup.store.recipe.RecipeCatalog.Deleted deleteObjects(String prefix, boolean bypassGovernance) {
            return new io.gpdedup.store.recipe.RecipeCatalog.Deleted(0, 0);
        }

        @Override
        public io.gpdedup.store.recipe.RecipeCatalog.Deleted deleteObject(String objectName, boolean bypassGovernance) {
            return new io.gpdedup.store.recipe.RecipeCatalog.Deleted(0, 0);
        }

        @Override
        public GcReport collectGarbage() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Recompression recompressNext(int zstdLevel, BooleanSupplier keepGoing) {
            throw new UnsupportedOperationException();
        }

        @Override
        public int recompressionPending() {
            return 0;
        }

        @Override
        public VerifyReport verify() {
            throw new UnsupportedOperationException();
        }

        @Override
        public UnitStats stats() {
            throw new UnsupportedOperationException();
        }
    }
}
