package io.gpdedup.dedup.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.gpdedup.client.StoreClient;
import io.gpdedup.dedup.LoopbackStore;
import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory budget belongs to the process (a host agent serves every call from one), so a restore
 * that fails must give back every byte of it it took, or the agent's later calls starve.
 */
@Timeout(60)
class RestoreWindowTest {
    @TempDir
    Path dir;

    @Test
    void aFailedRestoreGivesBackTheWholeWindow() throws Exception {
        ExecutorService workers = Executors.newFixedThreadPool(2);
        try (LoopbackStore store = LoopbackStore.start(dir); StoreClient client = store.connect()) {
            MemoryBudget budget = new MemoryBudget(64L << 20, 24L << 20, Duration.ofMinutes(1));
            PipelineSettings settings = new PipelineSettings(ChunkerParams.DEFAULT, ChunkCodec.of(Codec.NONE, 1), 1 << 20, budget, workers);
            // 64 batches of chunks the store never had: every fetch fails, most while others are in flight.
            Random r = new Random(7);
            List<ChunkRef> refs = new ArrayList<>();
            for (int i = 0; i < 64 * 4; i++) {
                byte[] fp = new byte[Fingerprint.LENGTH];
                r.nextBytes(fp);
                refs.add(new ChunkRef(Fingerprint.of(fp), 256 << 10));
            }
            Recipe recipe = Recipe.ofChunks(refs, 256L * (256 << 10));
            RestorePipeline restore = new RestorePipeline(settings, client);
            for (int round = 0; round < 3; round++) {
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                try (MemoryBudget.Stream stream = settings.admitRestore()) {
                    assertThrows(Exception.class, () -> restore.writeAll(recipe, out, stream));
                }
                assertEquals(0, out.size(), "nothing unverified written");
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while ((budget.used() != 0 || budget.streams() != 0) && System.nanoTime() < deadline) {
                Thread.sleep(10); // releases follow the cancelled fetches
            }
            assertEquals(0, budget.used(), "bytes still reserved after failed restores");
            assertEquals(0, budget.streams(), "streams still admitted after failed restores");
        } finally {
            workers.shutdownNow();
        }
    }
}
