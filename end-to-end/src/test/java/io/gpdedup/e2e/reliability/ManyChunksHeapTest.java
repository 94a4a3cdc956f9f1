package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.gpdedup.e2e.data.RepeatedBlock;
import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.data.Sha256Sink;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.layout.Timestamps;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a stream keeps of every chunk until it ends (its recipe, and the fingerprints its session
 * asks about again on a new lease) is 36 bytes in pages, not objects: a stream of over a million
 * chunks backs up and restores byte for byte through a host agent of 96 MiB. Held as objects,
 * about 100 bytes a chunk, the same stream took down an agent of 128 MiB. In single-data-file
 * mode a segment's whole backup is one stream, so this is what bounds the data a host's segments
 * can back up at once (docs/dedup-plugin.md, "Memory").
 */
@Timeout(300)
class ManyChunksHeapTest {
    private static final long STREAM_BYTES = 320L << 20;
    /** 256-byte chunks on average: 320 MiB make about 1.15 million of them. */
    private static final String SMALL_CHUNKS = "  chunk_min_size: \"64\"\n  chunk_avg_size: \"256\"\n  chunk_max_size: \"1024\"\n";

    @TempDir
    Path dir;

    @Test
    void overAMillionChunksBackUpAndRestoreThroughAHostAgentOf96MiB() throws Exception {
        // build-dist's young generation of 128 MiB would not leave such a heap an old one: a quarter of it here.
        Path executable = Dist.copyWithAgentFlags(dir.resolve("install"), DedupFixture.EXECUTABLE, "-Xmx96m -Xmn24m");
        // Recipe frames of 1 MiB, so that the commit adds little beside the list it sends.
        try (StoreAndPlugin host = StoreAndPlugin.start(dir, "max-frame-bytes: 1048576\n", "require", executable)) {
            String cfg = host.config("dedup", host.storePort(), SMALL_CHUNKS);
            String key = host.key(0, new Timestamps().next(), 16384);
            host.plugin().run(stream(), "backup_data", cfg, key).assertSucceeded();
            Sha256Sink restored = new Sha256Sink();
            host.plugin().stream(null, restored, "restore_data", cfg, key).assertSucceeded();
            assertEquals(STREAM_BYTES, restored.count());
            assertEquals(Sha256Sink.of(stream()), restored.hex(), "the restore");
        }
    }

    private static RepeatedBlock stream() {
        return new RepeatedBlock(SeededBytes.array(21, 4 << 20), STREAM_BYTES);
    }
}
