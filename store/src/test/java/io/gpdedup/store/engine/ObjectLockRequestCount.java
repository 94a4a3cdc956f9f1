package io.gpdedup.store.engine;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.s3.MotoBuckets;
import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

/**
 * A measurement (not a test): the bucket requests of backups of a unit with a retention lock, in
 * a bucket with S3 Object Lock (moto's server), by step, from the store's RequestCounters, beside
 * the same steps in a unit without a lock on the same bucket and store: a first backup of N MiB (default 256) in 16 MiB
 * containers, a second backup of the same bytes the same day, and after a restart whose config
 * locks a day longer, a third one (every shared container extended); then the unlocked unit's
 * backups are deleted and collected.
 *
 * <pre>java -cp &lt;store test classpath&gt; io.gpdedup.store.engine.ObjectLockRequestCount [MiB] [scratch dir]</pre>
 */
public final class ObjectLockRequestCount {
    private static final int CHUNK = 128 << 10;

    private ObjectLockRequestCount() {
    }

    public static void main(String[] args) throws Exception {
        int mib = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        Path dir = Files.createTempDirectory(Path.of(args.length > 1 ? args[1] : "/tmp"), "objlock");
        S3Settings s3 = MotoBuckets.fresh("requests", true, dir.resolve("cache"));
        EngineSettings settings = EngineSettings.defaults().withContainerSizeBytes(16L << 20).withVerifyOnPut(PutVerification.NONE)
                .withReconnectGrace(Duration.ZERO);
        byte[] data = TestObjects.data(7, mib << 20, false);
        for (String unit : new String[] {"locked", "plain"}) {
            boolean locked = unit.equals("locked");
            try (DedupStoreEngine engine = open(dir, "a-" + unit, settings, s3, 30)) {
                S3Backend b = (S3Backend) engine.backend();
                StorageUnit u = engine.unit(unit);
                step(b, unit + ": first backup", () -> backup(u, "db/1", data, locked ? 30 : 0));
                step(b, unit + ": same bytes, same day", () -> backup(u, "db/2", data, locked ? 30 : 0));
            }
            try (DedupStoreEngine engine = open(dir, "b-" + unit, settings, s3, 31)) {
                S3Backend b = (S3Backend) engine.backend();
                StorageUnit u = engine.unit(unit);
                step(b, unit + ": after a restart, a day longer", () -> backup(u, "db/3", data, locked ? 31 : 0));
                if (!locked) {
                    step(b, unit + ": delete all, collect", () -> {
                        u.deleteObjects("db/", false);
                        u.collectGarbage();
                    });
                }
                System.out.println(unit + ": containers " + u.stats().containers());
            }
        }
    }

    /** One store config for both units: "locked" asks for {@code days}, "plain" for none. */
    private static DedupStoreEngine open(Path dir, String name, EngineSettings settings, S3Settings s3, int days) {
        Map<String, CommitPolicy> locking = Map.of("locked", policy(days));
        return DedupStoreEngine.open(dir.resolve(name), settings, S3Backend.factory(s3.withCacheDir(dir.resolve(name + "-cache")), locking));
    }

    private static CommitPolicy policy(int days) {
        return days == 0 ? CommitPolicy.UNRESTRICTED : new CommitPolicy(RetentionLock.Mode.GOVERNANCE, days, true);
    }

    private static void backup(StorageUnit unit, String name, byte[] data, int days) {
        try (BackupLease lease = unit.beginBackup()) {
            lease.commit(name, TestObjects.upload(lease, data, CHUNK, Codec.NONE), policy(days)).join();
        }
    }

    private static void step(S3Backend backend, String what, Runnable work) {
        Map<String, Long> before = backend.requests().snapshot();
        work.run();
        Map<String, Long> delta = new TreeMap<>();
        backend.requests().snapshot().forEach((op, n) -> {
            long d = n - before.getOrDefault(op, 0L);
            if (d > 0) {
                delta.put(op, d);
            }
        });
        System.out.println(what + ": " + delta);
    }
}
