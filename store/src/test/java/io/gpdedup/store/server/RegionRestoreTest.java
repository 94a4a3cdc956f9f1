package io.gpdedup.store.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.store.chunk.ChunkRef;
import io.gpdedup.store.chunk.Fingerprint;
import io.gpdedup.store.chunk.Recipe;
import io.gpdedup.store.chunk.StoredChunk;
import io.gpdedup.store.client.BackupSession;
import io.gpdedup.store.client.StoreClient;
import io.gpdedup.store.codec.ChunkCodec;
import io.gpdedup.store.codec.Codec;
import io.gpdedup.store.engine.Recompression;
import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.engine.StoreEngine;
import io.gpdedup.store.protocol.ChunkUpload;
import io.gpdedup.store.protocol.Frame;
import io.gpdedup.store.protocol.Reply;
import io.gpdedup.store.protocol.Request;
import java.io.ByteArrayOutputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A restore of chunks the store's recompression packed into regions, over the wire, by clients of each protocol version. */
@Timeout(120)
class RegionRestoreTest {
    private static final String NAME = "db1/backups/20261127/20261127180000/gpbackup_0_20261127180000_1";

    @TempDir
    Path dir;

    @Test
    void regionsTravelOnceToClientsThatTakeThemAndChunkByChunkToOlderOnes() throws Exception {
        byte[] data = new byte[1_500_000];
        Random r = new Random(5);
        for (int i = 0; i < data.length; i++) {
            data[i] = (byte) ('a' + r.nextInt(4)); // two bits a byte: zstd shrinks it, lz4 hardly
        }
        List<ChunkRef> refs = new ArrayList<>();
        List<ChunkUpload> uploads = new ArrayList<>();
        ChunkCodec lz4 = ChunkCodec.of(Codec.LZ4, 0);
        for (int off = 0; off < data.length; off += 16_384) {
            byte[] raw = Arrays.copyOfRange(data, off, Math.min(data.length, off + 16_384));
            Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
            refs.add(new ChunkRef(fp, raw.length));
            var enc = lz4.encode(raw, 0, raw.length);
            uploads.add(new ChunkUpload(fp, enc.codec(), raw.length, enc.payload()));
        }
        Fingerprint[] fps = refs.stream().map(ChunkRef::fingerprint).toArray(Fingerprint[]::new);
        StoreEngine[] engine = new StoreEngine[1];
        try (StoreFixture store = StoreFixture.start(dir, c -> c, e -> engine[0] = e)) {
            try (StoreClient client = store.connectA(); BackupSession backup = client.beginBackup()) {
                backup.put(uploads).join();
                backup.commit(NAME, new Recipe(refs, data.length, Fingerprint.newDigest().digest(data)).withChunkListSha256()).join();
            }
            StorageUnit unit = engine[0].unit(StoreFixture.UNIT_A);
            List<Recompression> steps = new ArrayList<>();
            for (Recompression step = unit.recompressNext(3, () -> true); step.outcome() != Recompression.Outcome.NOTHING_PENDING;
                    step = unit.recompressNext(3, () -> true)) {
                steps.add(step);
            }
            assertTrue(steps.stream().anyMatch(s -> s.outcome() == Recompression.Outcome.REWRITTEN), steps.toString());

            try (StoreClient client = store.connectA()) {
                List<StoredChunk> chunks = client.chunks(fps).join();
                assertArrayEquals(data, joined(chunks, fps));
            }

            try (RawConnection c = RawConnection.loggedIn(store.port(), List.of(1, 2, 3, 4, 5))) {
                c.send(Frame.of(7, new Request.GetChunks(List.of(fps))));
                List<StoredChunk> chunks = new ArrayList<>();
                Frame f;
                do {
                    f = c.read();
                    assertTrue(f.message() instanceof Reply.ChunksPart, "a client of version 5 gets CHUNKS: " + f.message().type());
                    chunks.addAll(((Reply.ChunksPart) f.message()).chunks());
                } while (f.more());
                assertArrayEquals(data, joined(chunks, fps));
            }

            try (RawConnection c = RawConnection.loggedIn(store.port())) {
                c.send(Frame.of(7, new Request.GetChunks(List.of(fps))));
                int entries = 0;
                long bytes = 0;
                Frame f;
                do {
                    f = c.read();
                    Reply.RegionChunksPart part = (Reply.RegionChunksPart) f.message();
                    entries += part.entries().size();
                    bytes += part.bodySize();
                } while (f.more());
                assertTrue(entries < fps.length / 8, entries + " entries for " + fps.length + " chunks");
                assertTrue(bytes < data.length / 2, bytes + " bytes on the wire for " + data.length);
            }
        }
    }

    /** The chunks' bytes in order, each checked against its fingerprint. */
    private static byte[] joined(List<StoredChunk> chunks, Fingerprint[] fps) {
        assertEquals(fps.length, chunks.size());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < fps.length; i++) {
            StoredChunk c = chunks.get(i);
            byte[] raw = ChunkCodec.decode(c.codec(), c.rawLength(), c.payload(), c.payload().length);
            assertEquals(fps[i], Fingerprint.compute(raw, 0, raw.length), "chunk " + i);
            out.writeBytes(raw);
        }
        return out.toByteArray();
    }
}
