package io.gpdedup.store.net;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreConnectException;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.store.engine.DedupStoreEngine;
import io.gpdedup.store.engine.StorageUnit;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stop path (what SIGTERM runs): commits in flight finish and are durable; the rest is refused. */
class ShutdownTest {

    @Test
    void stopLetsAnInFlightCommitFinish(@TempDir Path dir) throws Exception {
        HoldingEngine[] holder = new HoldingEngine[1];
        StoreFixture store = StoreFixture.start(dir, c -> c, e -> holder[0] = new HoldingEngine(e));
        HoldingEngine engine = holder[0];
        assertTrue(Files.exists(dir.resolve("store.port")));

        byte[] raw = new byte[100_000];
        new Random(1).nextBytes(raw);
        Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
        Recipe recipe = new Recipe(List.of(new ChunkRef(fp, raw.length)), raw.length, Fingerprint.newDigest().digest(raw));

        StoreClient client = store.connectA();
        BackupSession open = client.beginBackup();
        open.put(List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw))).join();
        BackupSession committing = client.beginBackup();
        committing.missing(new Fingerprint[] {fp}).join();
        CompletableFuture<Void> commit = committing.commit("db/backups/x/y/committed", recipe);
        assertTrue(engine.commitStarted.await(30, TimeUnit.SECONDS));

        CompletableFuture<Void> stopped = CompletableFuture.runAsync(store::close);
        // Once stopping, new requests are refused (not run); poll until the stop has got that far.
        StoreServerException refused = null;
        for (int i = 0; i < 200 && refused == null; i++) {
            try {
                client.ping();
                Thread.sleep(10);
            } catch (StoreServerException e) {
                refused = e;
            }
        }
        assertTrue(refused != null, "requests are refused while stopping");
        assertEquals(ErrorCode.SHUTTING_DOWN, refused.code());
        assertThrows(StoreConnectException.class, store::connectA, "no new connections while stopping");
        assertFalse(stopped.isDone(), "the stop waits for the commit");
        assertFalse(commit.isDone());

        engine.release();
        commit.get(30, TimeUnit.SECONDS);
        stopped.get(60, TimeUnit.SECONDS);
        assertFalse(client.isOpen() && pingWorks(client), "connections are closed after the stop");
        client.close();
        assertFalse(Files.exists(dir.resolve("store.port")), "the port file goes with the server");

        try (DedupStoreEngine reopened = DedupStoreEngine.open(dir)) {
            StorageUnit unit = reopened.unit(StoreFixture.UNIT_A);
            assertEquals(recipe.chunks(), unit.recipe("db/backups/x/y/committed").orElseThrow().chunks());
            assertArrayEquals(raw, unit.read(fp).payload());
            List<String> names = new ArrayList<>();
            unit.list("").forEach(o -> names.add(o.name()));
            assertEquals(List.of("db/backups/x/y/committed"), names, "the uncommitted session left nothing");
        }
    }

    private static boolean pingWorks(StoreClient client) {
        try {
            client.ping();
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }
}
