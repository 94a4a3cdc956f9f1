package io.gpdedup.appliance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.store.cli.StoreMain;
import io.gpdedup.store.net.StoreFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The store served through the appliance: data still round-trips, and the trace accounts for it. */
class ApplianceServerTest {
    @Test
    void backupAndRestoreThroughTheThrottleAreExactAndTraced(@TempDir Path dir) throws Exception {
        // Rates 50x the reference's: the test checks what passes, not how long it takes.
        ApplianceProfile fast = ApplianceProfileTest.seed().withScale(50);
        Path trace = dir.resolve("trace.csv");
        byte[][] chunks = new byte[8][];
        SplittableRandom r = new SplittableRandom(42);
        List<ChunkRef> refs = new ArrayList<>();
        List<ChunkUpload> uploads = new ArrayList<>();
        Fingerprint[] fps = new Fingerprint[chunks.length];
        for (int i = 0; i < chunks.length; i++) {
            chunks[i] = new byte[20_000 + i];
            r.nextBytes(chunks[i]);
            fps[i] = Fingerprint.compute(chunks[i], 0, chunks[i].length);
            refs.add(new ChunkRef(fps[i], chunks[i].length));
            uploads.add(new ChunkUpload(fps[i], Codec.NONE, chunks[i].length, chunks[i]));
        }
        long total = refs.stream().mapToLong(ChunkRef::length).sum();
        try (StoreFixture store = StoreFixture.start(dir.resolve("data"), c -> c, e -> {
            try {
                return ApplianceEngine.wrap(e, fast, trace);
            } catch (IOException x) {
                throw new UncheckedIOException(x);
            }
        })) {
            try (StoreClient client = store.connectA()) {
                try (BackupSession s = client.beginBackup()) {
                    boolean[] missing = s.missing(fps).join();
                    for (boolean m : missing) {
                        assertTrue(m);
                    }
                    s.put(uploads).join();
                    s.commit("t/backups/20250101/20250101000000/f", new Recipe(refs, total, Fingerprint.parse("5a".repeat(32)).toBytes())).join();
                }
                List<StoredChunk> back = client.chunks(fps).join();
                for (int i = 0; i < chunks.length; i++) {
                    assertArrayEquals(chunks[i], back.get(i).payload());
                }
            }
        }
        long written = 0;
        for (String line : Files.readAllLines(trace, StandardCharsets.UTF_8)) {
            if (line.startsWith("write,")) {
                assertTrue(line.contains(",t/backups/20250101/20250101000000/f,"), line);
                written += Long.parseLong(line.substring(line.lastIndexOf(',') + 1));
            }
        }
        assertEquals(total, written, "the trace holds every byte the stream sent");
    }

    @Test
    void serveRefusesABadProfileBeforeOpeningAnything(@TempDir Path dir) throws IOException {
        Path profile = dir.resolve("bad.yaml");
        Files.writeString(profile, "name: x\nscale: fast\n");
        Path cfg = dir.resolve("store.yaml");
        Files.writeString(cfg, "port: 0\ndata-dir: data\nunits: {u: {users: {a: '"
                + io.gpdedup.store.auth.PasswordHash.create("x".toCharArray(), 1000).encoded() + "'}}}\n");
        assertEquals(2, StoreMain.run("serve", "--config", cfg.toString(), "--appliance-profile", profile.toString()));
        assertEquals(2, StoreMain.run("serve", "--config", cfg.toString(), "--appliance-trace", dir.resolve("t.csv").toString()),
                "a trace without a profile is a mistake");
        assertTrue(Files.notExists(dir.resolve("data")), "nothing was created");
    }
}
