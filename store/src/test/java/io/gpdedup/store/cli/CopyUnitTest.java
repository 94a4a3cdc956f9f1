package io.gpdedup.store.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.codec.ChunkCodec;
import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.protocol.model.StoredChunk;
import io.gpdedup.store.SdkCredentials;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.store.config.ConfigLoader;
import io.gpdedup.store.engine.BackupLease;
import io.gpdedup.store.engine.CommitPolicy;
import io.gpdedup.store.engine.DedupStoreEngine;
import io.gpdedup.store.engine.StorageUnit;
import io.gpdedup.store.net.StoreService;
import io.gpdedup.testsupport.ConsoleCapture;
import io.gpdedup.testsupport.S3Server;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code gpdedup-store copy-unit}: a unit of a local data directory copied into a bucket, then served from there. */
@Timeout(300)
class CopyUnitTest {
    @TempDir
    Path dir;

    @RegisterExtension
    final SdkCredentials credentials = new SdkCredentials(S3Server.IDENTITY, S3Server.CREDENTIAL);

    private static final RetentionLock LOCK = new RetentionLock(RetentionLock.Mode.COMPLIANCE, 4_000_000_000_000L);

    private static Recipe backup(StorageUnit unit, String name, byte[] data) {
        List<ChunkRef> refs = new ArrayList<>();
        try (BackupLease lease = unit.beginBackup()) {
            for (int off = 0; off < data.length; off += 4096) {
                byte[] raw = Arrays.copyOfRange(data, off, Math.min(data.length, off + 4096));
                Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
                if (lease.missing(new Fingerprint[] {fp})[0]) {
                    lease.put(fp, Codec.NONE, raw.length, raw);
                }
                refs.add(new ChunkRef(fp, raw.length));
            }
            Recipe r = new Recipe(refs, data.length, Fingerprint.newDigest().digest(data));
            // One object locked: its copy must keep the lock, not take the target unit's (none here).
            lease.commit(name, r, name.endsWith("2") ? CommitPolicy.keeping(LOCK) : CommitPolicy.UNRESTRICTED).join();
            return r;
        }
    }

    private static byte[] restore(StorageUnit unit, String name) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (ChunkRef r : unit.recipe(name).orElseThrow().chunks()) {
            StoredChunk c = unit.read(r.fingerprint());
            out.writeBytes(ChunkCodec.decode(c.codec(), c.rawLength(), c.payload(), c.payload().length));
        }
        return out.toByteArray();
    }

    @Test
    void aLocalUnitIsCopiedIntoABucketAndServedFromIt() throws Exception {
        Random r = new Random(5);
        byte[] shared = new byte[40_000];
        r.nextBytes(shared);
        List<byte[]> objects = new ArrayList<>();
        long sourceChunks;
        try (DedupStoreEngine local = DedupStoreEngine.open(dir.resolve("local"))) {
            for (int i = 0; i < 4; i++) {
                byte[] own = new byte[30_000 + i * 10_000];
                r.nextBytes(own);
                byte[] data = Arrays.copyOf(shared, shared.length + own.length);
                System.arraycopy(own, 0, data, shared.length, own.length);
                objects.add(data);
                backup(local.unit("prod"), "db/backups/" + i, data);
            }
            sourceChunks = local.unit("prod").stats().chunks();
        }
        S3Server server = S3Server.shared();
        String bucket = server.newBucket("copy-unit");
        Path config = dir.resolve("s3.yaml");
        Files.writeString(config, "data-dir: target-data\nstorage:\n  type: s3\n  endpoint: " + server.endpoint() + "\n  bucket: " + bucket
                + "\n  prefix: site2/\n  cache-dir: target-cache\nunits:\n  prod:\n    users:\n      backup: "
                + PasswordHash.create("pw".toCharArray(), 1000).encoded() + "\n");
        assertEquals(0, run("copy-unit", "--from", dir.resolve("local").toString(), "--unit", "prod", "--config", config.toString()));
        String again = capture(() -> assertEquals(0, run("copy-unit", "--from", dir.resolve("local").toString(), "--unit", "prod",
                "--config", config.toString())));
        assertTrue(again.contains("copied 0 objects (4 already there), 0 chunks"), again);
        String missing = captureErr(() -> assertEquals(1, run("copy-unit", "--from", dir.resolve("local").toString(), "--unit", "lab",
                "--config", config.toString())));
        assertEquals("gpdedup-store: there is no storage unit lab in " + dir.resolve("local") + "\n", missing);

        try (DedupStoreEngine target = StoreService.openEngine(ConfigLoader.load(config))) {
            StorageUnit unit = target.unit("prod");
            assertEquals(List.of("db/backups/0", "db/backups/1", "db/backups/2", "db/backups/3"),
                    unit.list("").stream().map(ObjectInfo::name).toList());
            for (int i = 0; i < objects.size(); i++) {
                assertArrayEquals(objects.get(i), restore(unit, "db/backups/" + i));
            }
            assertEquals(sourceChunks, unit.stats().chunks(), "shared chunks were copied once");
            assertEquals(List.of(RetentionLock.NONE, RetentionLock.NONE, LOCK, RetentionLock.NONE), unit.list("").stream().map(ObjectInfo::lock).toList());
            assertTrue(unit.verify().ok());
        }
    }

    private static int run(String... args) {
        return StoreMain.run(args);
    }

    private static String capture(Runnable r) {
        return captured(r).out();
    }

    private static String captureErr(Runnable r) {
        return captured(r).err();
    }

    private static ConsoleCapture captured(Runnable r) {
        return ConsoleCapture.run(() -> {
            r.run();
            return 0;
        });
    }
}
