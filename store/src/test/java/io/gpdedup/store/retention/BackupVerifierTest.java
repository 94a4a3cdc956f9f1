package io.gpdedup.store.retention;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.luben.zstd.Zstd;
import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.naming.BackupTimestamp;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.store.net.StoreFixture;
import io.gpdedup.testsupport.Damage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import net.jpountz.lz4.LZ4Factory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link BackupVerifier} as a client of a real server over a socket, in batches of four chunks so
 * that objects span many batches: which backups a timestamp names, healthy objects of both recipe
 * kinds (chunk list SHA-256 alone; stream SHA-256 alone, as older backups recorded), a recipe whose
 * chunks are out of order under each kind, and a chunk damaged on disk in the middle of an object.
 */
class BackupVerifierTest {
    private static final int CHUNK = 4096;
    private static final String TS = "20261101100000";
    private static final String PREFIX = "c1/backups/20261101/" + TS + "/";

    @TempDir
    Path dir;

    @Test
    void findsTheBackupsOfATimestamp() {
        try (StoreFixture store = StoreFixture.start(dir); StoreClient client = store.connectA()) {
            commit(client, PREFIX + "gpbackup_0_" + TS + "_1", random(1, 3 * CHUNK), Codec.NONE, false, false);
            commit(client, "c2/backups/20261101/" + TS + "/gpbackup_0_" + TS + "_1", random(2, CHUNK), Codec.NONE, false, false);
            commit(client, "c1/backups/20261102/20261102100000/gpbackup_0_20261102100000_1", random(3, CHUNK), Codec.NONE, false, false);
            BackupVerifier v = new BackupVerifier(client);
            assertEquals(List.of("c1", "c2"), v.backups(BackupTimestamp.parse(TS), null).stream().map(BackupSet::directory).toList());
            assertEquals(List.of("c2"), v.backups(BackupTimestamp.parse(TS), "c2/").stream().map(BackupSet::directory).toList());
            assertEquals(List.of(), v.backups(BackupTimestamp.parse("20261103100000"), null));
        }
    }

    @Test
    void checksEveryChunkOfEachObjectAndNamesWhatIsWrong() throws IOException {
        byte[] listed = random(1, 100 * CHUNK + 123);
        byte[] streamed = compressible(2, 30 * CHUNK);
        try (StoreFixture store = StoreFixture.start(dir); StoreClient client = store.connectA()) {
            commit(client, PREFIX + "a-listed", listed, Codec.NONE, false, false);
            commit(client, PREFIX + "b-streamed", streamed, Codec.ZSTD, true, false);
            commit(client, PREFIX + "c-listed-reordered", random(3, 10 * CHUNK), Codec.NONE, false, true);
            commit(client, PREFIX + "d-streamed-reordered", random(4, 10 * CHUNK), Codec.LZ4, true, true);
            BackupVerifier verifier = new BackupVerifier(client, 4 * CHUNK);

            List<BackupVerifier.Checked> checked = verifier.check(verifier.backups(BackupTimestamp.parse(TS), "c1"));
            assertEquals(4, checked.size());
            assertNull(checked.get(0).problem());
            assertEquals(101, checked.get(0).chunks());
            assertEquals(listed.length, checked.get(0).bytes());
            assertNull(checked.get(1).problem());
            assertEquals(30, checked.get(1).chunks());
            assertEquals("its chunk list does not match the SHA-256 recorded at backup", checked.get(2).problem());
            assertEquals(0, checked.get(2).chunks(), "a wrong chunk list is caught before any chunk is fetched");
            assertEquals("its chunks do not hash to the stream SHA-256 recorded at backup", checked.get(3).problem());
            assertEquals(10, checked.get(3).chunks(), "without a chunk list digest every chunk is read before the stream is judged");
            assertEquals(verifier.bytesDone(), checked.stream().mapToLong(BackupVerifier.Checked::bytes).sum());

            damage(store.dataDir, Arrays.copyOfRange(listed, 57 * CHUNK + 100, 57 * CHUNK + 164));
            BackupVerifier again = new BackupVerifier(client, 4 * CHUNK);
            BackupVerifier.Checked hit = again.check(again.backups(BackupTimestamp.parse(TS), "c1")).get(0);
            assertTrue(hit.problem().startsWith("chunk 57 cannot be read: "), hit.problem());
            assertTrue(hit.problem().contains(Fingerprint.compute(listed, 57 * CHUNK, CHUNK).toString()), hit.problem());
            assertEquals(56, hit.chunks(), "the batches before the damaged chunk's were checked");
            assertTrue(client.isOpen(), "a chunk the store cannot read leaves the connection usable");
        }
    }

    /** Commits {@code data} in chunks of {@link #CHUNK}; its recipe with the stream SHA-256 alone or the chunk list SHA-256 alone. */
    private static void commit(StoreClient client, String name, byte[] data, Codec codec, boolean streamSha, boolean reorder) {
        List<ChunkRef> refs = new ArrayList<>();
        List<ChunkUpload> uploads = new ArrayList<>();
        for (int off = 0; off < data.length; off += CHUNK) {
            byte[] raw = Arrays.copyOfRange(data, off, Math.min(data.length, off + CHUNK));
            Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
            refs.add(new ChunkRef(fp, raw.length));
            byte[] payload = switch (codec) {
                case NONE -> raw;
                case ZSTD -> Zstd.compress(raw, 3);
                case LZ4 -> LZ4Factory.fastestInstance().fastCompressor().compress(raw);
            };
            uploads.add(new ChunkUpload(fp, codec, raw.length, payload));
        }
        List<ChunkRef> listed = new ArrayList<>(refs);
        if (reorder) {
            Collections.swap(listed, 0, 1);
        }
        Recipe recipe = streamSha ? new Recipe(listed, data.length, Fingerprint.newDigest().digest(data))
                : new Recipe(listed, data.length, null, Recipe.listSha256(refs, data.length));
        try (BackupSession s = client.beginBackup()) {
            s.put(uploads).join();
            s.commit(name, recipe).join();
        }
    }

    /** Flips one byte of the record holding {@code piece}, wherever a container under {@code dataDir} has it. */
    private static void damage(Path dataDir, byte[] piece) throws IOException {
        try (Stream<Path> files = Files.walk(dataDir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".ctr")).toList()) {
                byte[] bytes = Files.readAllBytes(f);
                for (int i = 0; i <= bytes.length - piece.length; i++) {
                    if (Arrays.equals(bytes, i, i + piece.length, piece, 0, piece.length)) {
                        Damage.flipByte(f, i);
                        return;
                    }
                }
            }
        }
        throw new AssertionError("no container holds the piece");
    }

    private static byte[] random(long seed, int length) {
        byte[] b = new byte[length];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] compressible(long seed, int length) {
        Random r = new Random(seed);
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) ('a' + r.nextInt(4));
        }
        return b;
    }
}
