package io.gpdedup.dedup.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.dedup.LoopbackStore;
import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.wire.ProtocolVersions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A plugin and a store one protocol version apart (6 and 7) back up and restore together. A relay
 * passes on the plugin's HELLO with the versions up to 6 only: the store answers as it would a
 * plugin of version 6, and the plugin sees what a store of version 6 would show it, so the one
 * conversation covers both mixes an upgrade goes through. Backups made over either version restore
 * byte-exact over the other. What only version 7 has, a standby's NOT_SERVED, reaches a version 6
 * client as one line saying to upgrade the plugin ({@link OlderClientAtAStandbyTest}).
 */
@Timeout(60)
class AdjacentProtocolVersionsTest {
    @TempDir
    Path dir;

    private LoopbackStore store;
    private StoreClient current;
    private ExecutorService workers;
    private PipelineSettings settings;
    private final byte[] first = new byte[3 << 20];
    private final byte[] second = new byte[2 << 20];

    @BeforeEach
    void start() {
        store = LoopbackStore.start(dir);
        current = store.connect();
        workers = Executors.newFixedThreadPool(2);
        MemoryBudget budget = new MemoryBudget(64L << 20, 24L << 20, Duration.ofMinutes(1));
        settings = new PipelineSettings(new ChunkerParams(16 << 10, 64 << 10, 256 << 10), ChunkCodec.of(Codec.ZSTD, 1), 1 << 20, budget, workers);
        new Random(6).nextBytes(first);
        new Random(7).nextBytes(second);
    }

    @AfterEach
    void stop() {
        workers.shutdownNow();
        current.close();
        store.close();
    }

    @Test
    void backupsOverVersionsSixAndSevenRestoreOverEither() throws Exception {
        try (VersionCappingRelay relay = VersionCappingRelay.start(store.port(), ProtocolVersions.V6);
                StoreClient six = LoopbackStore.connect(relay.port())) {
            backup(six, "over-six", first);
            backup(current, "over-seven", second);
            assertEquals(ProtocolVersions.V6, relay.agreed().get(0), "the store agreed on the capped version: " + relay.agreed());

            for (StoreClient reader : List.of(six, current)) {
                assertArrayEquals(first, restore(reader, "over-six"));
                assertArrayEquals(second, restore(reader, "over-seven"));
            }
            assertFalse(relay.agreed().stream().anyMatch(v -> v != ProtocolVersions.V6), "every relayed connection spoke 6: " + relay.agreed());
        }
    }

    @Test
    void withoutTheCapTheRelayedConnectionSpeaksSeven() throws Exception {
        try (VersionCappingRelay relay = VersionCappingRelay.start(store.port(), ProtocolVersions.V7);
                StoreClient seven = LoopbackStore.connect(relay.port())) {
            backup(seven, "over-seven", first);
            assertArrayEquals(first, restore(current, "over-seven"));
            assertEquals(List.of(ProtocolVersions.V7), relay.agreed());
        }
    }

    private void backup(StoreClient client, String name, byte[] data) throws Exception {
        try (MemoryBudget.Stream stream = settings.admitBackup(); BackupSession session = client.beginBackup()) {
            Recipe r = new BackupPipeline(settings).store(new ByteArrayInputStream(data), session, stream).recipe();
            session.commit(name, r).join();
        }
    }

    private byte[] restore(StoreClient client, String name) throws Exception {
        Recipe recipe = client.recipe(name).orElseThrow();
        assertNotNull(recipe.chunkListSha256(), name + " keeps its chunk list digest (version 4 and later)");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (MemoryBudget.Stream stream = settings.admitRestore()) {
            new RestorePipeline(settings, client).writeAll(recipe, out, stream);
        }
        return out.toByteArray();
    }
}
