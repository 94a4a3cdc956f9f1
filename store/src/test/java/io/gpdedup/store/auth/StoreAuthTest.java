package io.gpdedup.store.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.BackupSession;
import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreAuthException;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.report.GcReport;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.store.net.StoreFixture;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Logins, and the wall between storage units. */
class StoreAuthTest {
    @TempDir
    Path dir;
    private StoreFixture store;

    @BeforeEach
    void start() {
        store = StoreFixture.start(dir);
    }

    @AfterEach
    void stop() {
        store.close();
    }

    @Test
    void wrongCredentialsAreRefusedAlike() {
        ClientSettings a = store.settingsA();
        List<ClientSettings> wrong = List.of(
                new ClientSettings(a.host(), a.port(), a.unit(), a.user(), "not-the-password", a.connectTimeout(), a.readTimeout()),
                new ClientSettings(a.host(), a.port(), a.unit(), "mallory", StoreFixture.PASSWORD_A, a.connectTimeout(), a.readTimeout()),
                new ClientSettings(a.host(), a.port(), "gamma", a.user(), StoreFixture.PASSWORD_A, a.connectTimeout(), a.readTimeout()),
                // A real user of unit A, with the right password, asking for unit B.
                new ClientSettings(a.host(), a.port(), StoreFixture.UNIT_B, a.user(), StoreFixture.PASSWORD_A, a.connectTimeout(), a.readTimeout()));
        String first = null;
        for (ClientSettings s : wrong) {
            StoreAuthException e = assertThrows(StoreAuthException.class, () -> StoreClient.connect(s));
            assertFalse(e.getMessage().contains(s.password()), "no password in messages");
            String serverPart = e.getMessage().substring(e.getMessage().lastIndexOf(": ") + 2);
            if (first == null) {
                first = serverPart;
            }
            assertEquals(first, serverPart, "the server does not say which part was wrong");
        }
        // After the failures (same address: it is throttled, not locked out) the right password works.
        try (StoreClient ok = store.connectA()) {
            ok.ping();
        }
    }

    @Test
    void aUserOfOneUnitCannotReachAnother() {
        byte[] raw = "unit A's secret data".getBytes(StandardCharsets.UTF_8);
        Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
        Recipe recipe = new Recipe(List.of(new ChunkRef(fp, raw.length)), raw.length, Fingerprint.newDigest().digest(raw));
        try (StoreClient a = store.connectA(); StoreClient b = store.connectB()) {
            try (BackupSession s = a.beginBackup()) {
                s.put(List.of(new ChunkUpload(fp, Codec.NONE, raw.length, raw))).join();
                s.commit("db/backups/1/2/file", recipe).join();
            }
            assertEquals(List.of(), b.list(""));
            assertEquals(Optional.empty(), b.recipe("db/backups/1/2/file"));
            assertEquals(0, b.deleteObjects("db/"));
            CompletionException read = assertThrows(CompletionException.class, () -> b.chunks(new Fingerprint[] {fp}).join());
            assertEquals(ErrorCode.STORE_ERROR, ((StoreServerException) read.getCause()).code());
            try (BackupSession s = b.beginBackup()) {
                assertTrue(s.missing(new Fingerprint[] {fp}).join()[0], "unit B does not see unit A's chunks");
            }
            assertEquals(0, b.stats().objects());
            // B's collector and verifier work on B's unit alone: A's chunk is neither seen nor reclaimed.
            GcReport gc = b.gc();
            assertEquals(0, gc.chunksBefore(), gc.toString());
            VerifyReport verify = b.verify();
            assertEquals(0, verify.chunksChecked() + verify.objectsChecked(), verify.toString());

            assertEquals(1, a.list("").size());
            assertEquals(raw.length, a.stats().logicalBytes());
            assertArrayEquals(raw, a.chunks(new Fingerprint[] {fp}).join().get(0).payload(), "A's chunk survives B's gc");
        }
    }
}
