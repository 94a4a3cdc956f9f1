package io.gpdedup.dedup.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.dedup.LoopbackStore;
import io.gpdedup.dedup.chunk.Chunker;
import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.dedup.chunk.Chunks;
import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.Recipe;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A stream with more chunks than one object may have stops at the chunk past the limit, with one
 * line saying what to do, instead of sending everything and failing at its commit; a stream of
 * exactly the limit backs up.
 */
@Timeout(60)
class ChunkLimitTest {
    private static final ChunkerParams SMALL = new ChunkerParams(1 << 10, 4 << 10, 16 << 10);

    @TempDir
    Path dir;

    private LoopbackStore store;
    private StoreClient client;
    private ExecutorService workers;
    private PipelineSettings settings;
    private final byte[] data = new byte[4 << 20];
    private int chunks;

    @BeforeEach
    void start() throws Exception {
        store = LoopbackStore.start(dir);
        client = store.connect();
        workers = Executors.newFixedThreadPool(2);
        settings = new PipelineSettings(SMALL, ChunkCodec.of(Codec.ZSTD, 1), 1 << 20,
                new MemoryBudget(64L << 20, 24L << 20, Duration.ofMinutes(1)), workers);
        new Random(31).nextBytes(data);
        chunks = Chunks.cutAll(new Chunker(SMALL), data).size();
    }

    @AfterEach
    void stop() throws Exception {
        workers.shutdownNow();
        client.close();
        store.close();
    }

    @Test
    void aStreamOfExactlyTheLimitBacksUp() throws Exception {
        try (MemoryBudget.Stream stream = settings.admitBackup(); BackupSession session = client.beginBackup()) {
            Recipe r = new BackupPipeline(settings, chunks).store(new ByteArrayInputStream(data), session, stream).recipe();
            assertEquals(chunks, r.chunks().size());
            session.commit("obj", r).join();
        }
        assertTrue(client.recipe("obj").isPresent());
    }

    @Test
    void aStreamPastTheLimitStopsThereWithOneLine() throws Exception {
        long limit = chunks / 10;
        CountingInput in = new CountingInput(data);
        try (MemoryBudget.Stream stream = settings.admitBackup(); BackupSession session = client.beginBackup()) {
            IOException e = assertThrows(IOException.class, () -> new BackupPipeline(settings, limit).store(in, session, stream));
            assertEquals("this stream has more than " + limit + " chunks, the most one backup object may have (reached after 0 MiB"
                    + " at an average chunk of 4 KiB): back up without --single-data-file (one object per table and segment), or to"
                    + " another storage unit with a larger chunk_avg_size", e.getMessage());
        }
        assertTrue(in.read < data.length / 4, "stopped at the limit, after " + in.read + " of " + data.length + " bytes");
        assertTrue(client.recipe("obj").isEmpty());
    }

    private static final class CountingInput extends InputStream {
        private final ByteArrayInputStream in;
        long read;

        CountingInput(byte[] data) {
            this.in = new ByteArrayInputStream(data);
        }

        @Override
        public int read() {
            int b = in.read();
            read += b < 0 ? 0 : 1;
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            int n = in.read(b, off, len);
            read += Math.max(n, 0);
            return n;
        }
    }
}
