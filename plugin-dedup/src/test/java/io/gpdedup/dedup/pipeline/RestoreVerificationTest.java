package io.gpdedup.dedup.pipeline;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.dedup.LoopbackStore;
import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.plugin.api.ByteRanges;
import io.gpdedup.plugin.api.PluginException;
import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.wire.ProtocolVersions;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
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
 * What a restore proves before its bytes reach stdout: each chunk against its fingerprint and, for a
 * backup that recorded one, the chunk list against its SHA-256. A list whose chunks are all intact
 * but in the wrong order (a damaged recipe) is refused before anything is written; a recipe from
 * before the digest still restores, checked by the stream SHA-256.
 */
@Timeout(60)
class RestoreVerificationTest {
    @TempDir
    Path dir;

    private LoopbackStore store;
    private StoreClient client;
    private ExecutorService workers;
    private PipelineSettings settings;
    private final byte[] data = new byte[3 << 20];

    @BeforeEach
    void start() throws Exception {
        store = LoopbackStore.start(dir);
        client = store.connect();
        workers = Executors.newFixedThreadPool(2);
        MemoryBudget budget = new MemoryBudget(64L << 20, 24L << 20, Duration.ofMinutes(1));
        settings = new PipelineSettings(new ChunkerParams(16 << 10, 64 << 10, 256 << 10), ChunkCodec.of(Codec.ZSTD, 1), 1 << 20, budget, workers);
        new Random(14).nextBytes(data);
    }

    @AfterEach
    void stop() throws Exception {
        workers.shutdownNow();
        client.close();
        store.close();
    }

    private Recipe backup() throws Exception {
        try (MemoryBudget.Stream stream = settings.admitBackup(); BackupSession session = client.beginBackup()) {
            Recipe r = new BackupPipeline(settings).store(new ByteArrayInputStream(data), session, stream).recipe();
            session.commit("obj", r).join();
            return client.recipe("obj").orElseThrow();
        }
    }

    private byte[] restore(Recipe recipe) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (MemoryBudget.Stream stream = settings.admitRestore()) {
            new RestorePipeline(settings, client).writeAll(recipe, out, stream);
        }
        return out.toByteArray();
    }

    /** The same chunks with two of them swapped: each is intact, the stream is not. */
    private static List<ChunkRef> swapped(Recipe r) {
        List<ChunkRef> refs = new ArrayList<>(r.chunks());
        int a = 0;
        int b = 1;
        while (refs.get(b).fingerprint().equals(refs.get(a).fingerprint())) {
            b++;
        }
        refs.set(a, r.chunks().get(b));
        refs.set(b, r.chunks().get(a));
        return refs;
    }

    @Test
    void aBackupRecordsItsChunkListAndARestoreChecksIt() throws Exception {
        Recipe stored = backup();
        assertNotNull(stored.chunkListSha256(), "the store keeps and returns the digest the backup recorded");
        assertNull(stored.streamSha256(), "the chunk list digest proves the stream: no second pass over it at backup");
        assertTrue(stored.chunks().size() > 10);
        assertArrayEquals(data, restore(stored));

        Recipe damaged = new Recipe(swapped(stored), stored.totalLength(), stored.streamSha256(), stored.chunkListSha256());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (MemoryBudget.Stream stream = settings.admitRestore()) {
            RestorePipeline restore = new RestorePipeline(settings, client);
            PluginException e = assertThrows(PluginException.class, () -> restore.writeAll(damaged, out, stream));
            assertTrue(e.getMessage().contains("recipe is damaged"), e.getMessage());
            assertEquals(0, out.size(), "a damaged chunk list is caught before anything is written");
            assertThrows(PluginException.class, () -> restore.writeRanges(damaged, ByteRanges.of(0, 10), out, stream));
            assertEquals(0, out.size());
        }
    }

    @Test
    void aStoreBeforeVersionFiveGetsTheStreamHashAsWellAndNoRecipeWithoutOne() throws Exception {
        try (VersionCappingRelay relay = VersionCappingRelay.start(store.port(), ProtocolVersions.V4);
                StoreClient older = LoopbackStore.connect(relay.port())) {
            Recipe r;
            try (MemoryBudget.Stream stream = settings.admitBackup(); BackupSession session = older.beginBackup()) {
                assertTrue(session.needsStreamSha256());
                r = new BackupPipeline(settings).store(new ByteArrayInputStream(data), session, stream).recipe();
                session.commit("older", r).join();
            }
            assertArrayEquals(Fingerprint.newDigest().digest(data), r.streamSha256());
            assertArrayEquals(r.streamSha256(), client.recipe("older").orElseThrow().streamSha256());
            assertArrayEquals(data, restore(client.recipe("older").orElseThrow()));

            Recipe unhashed = Recipe.ofChunks(r.chunks(), r.totalLength());
            try (BackupSession session = older.beginBackup()) {
                Throwable e = assertThrows(Exception.class, () -> session.commit("unhashed", unhashed).join());
                Throwable cause = e.getCause() == null ? e : e.getCause();
                assertTrue(cause.getMessage().contains("needs version 5: upgrade the store"), cause.getMessage());
            }
            assertTrue(client.recipe("unhashed").isEmpty(), "nothing became visible");
        }
    }

    @Test
    void aRecipeWithoutTheDigestIsCheckedByItsStreamHash() throws Exception {
        Recipe stored = backup();
        Recipe old = new Recipe(stored.chunks(), stored.totalLength(), Fingerprint.newDigest().digest(data));
        assertArrayEquals(data, restore(old));

        Recipe damaged = new Recipe(swapped(old), old.totalLength(), old.streamSha256());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (MemoryBudget.Stream stream = settings.admitRestore()) {
            RestorePipeline restore = new RestorePipeline(settings, client);
            PluginException e = assertThrows(PluginException.class, () -> restore.writeAll(damaged, out, stream));
            assertTrue(e.getMessage().contains("does not match the SHA-256 recorded at backup"), e.getMessage());
        }
        assertEquals(data.length, out.size());
        assertTrue(!Arrays.equals(data, out.toByteArray()));
    }

    @Test
    void aSubsetOfARecipeWithoutTheDigestIsCheckedByItsStreamHashBeforeAnythingIsWritten() throws Exception {
        Recipe stored = backup();
        Recipe old = new Recipe(stored.chunks(), stored.totalLength(), Fingerprint.newDigest().digest(data));
        ByteRanges ranges = ByteRanges.of(100_000, 200_000);
        try (MemoryBudget.Stream stream = settings.admitRestore()) {
            RestorePipeline restore = new RestorePipeline(settings, client);
            ByteArrayOutputStream intact = new ByteArrayOutputStream();
            restore.writeRanges(old, ranges, intact, stream);
            assertArrayEquals(Arrays.copyOfRange(data, 100_000, 200_000), intact.toByteArray(), "an intact list restores its range");

            // Swapped chunks of equal length, both outside the range: the range alone would look right.
            Recipe damaged = new Recipe(swappedPastEnd(old, 200_000), old.totalLength(), old.streamSha256());
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            PluginException e = assertThrows(PluginException.class, () -> restore.writeRanges(damaged, ranges, out, stream));
            assertTrue(e.getMessage().contains("does not match the SHA-256 recorded at backup"), e.getMessage());
            assertEquals(0, out.size(), "nothing of a range is written from an unproven chunk list");
        }
    }

    /** Two chunks wholly after byte {@code from} swapped, so the stream before them is unchanged. */
    private static List<ChunkRef> swappedPastEnd(Recipe r, long from) {
        List<ChunkRef> refs = new ArrayList<>(r.chunks());
        long pos = 0;
        int a = -1;
        for (int i = 0; i < refs.size(); i++) {
            if (pos >= from && a < 0) {
                a = i;
            }
            pos += refs.get(i).length();
        }
        int b = refs.size() - 1;
        assertTrue(a >= 0 && a < b && !refs.get(a).fingerprint().equals(refs.get(b).fingerprint()), "the backup has chunks past the range");
        ChunkRef ca = refs.get(a);
        refs.set(a, refs.get(b));
        refs.set(b, ca);
        return refs;
    }
}
