package io.gpdedup.store.engine;

import io.gpdedup.store.chunk.ChunkRef;
import io.gpdedup.store.chunk.Fingerprint;
import io.gpdedup.store.chunk.Recipe;
import io.gpdedup.store.codec.Codec;
import io.gpdedup.store.report.UnitStats;
import io.gpdedup.store.s3.Bucket;
import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.store.s3.TestBuckets;
import io.gpdedup.testsupport.S3Server;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A measurement (not a test): the cold start of a store on S3 (S3Proxy, filesystem backend) for a
 * unit of N chunks (default 10^6). It writes N distinct 64-byte chunks through the engine into
 * containers of 512 records each (a 64 MiB container of 128 KiB chunks holds as many), committed
 * as objects of 500 chunks, stops the store cleanly, then times a start of another store with an
 * empty cache: first from the checkpoints the clean stop left, then with both checkpoints deleted
 * (a crash before any checkpoint: every index object and every recipe is read).
 *
 * <pre>java -cp &lt;store test classpath&gt; io.gpdedup.store.engine.S3StartBench [chunks] [scratch dir]</pre>
 */
public final class S3StartBench {
    private static final int PAYLOAD = 64;
    private static final int PER_OBJECT = 500;

    private S3StartBench() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path dir = Files.createTempDirectory(Path.of(args.length > 1 ? args[1] : "/tmp"), "s3start");
        S3Settings s3 = TestBuckets.fresh("start-bench", dir.resolve("cache"));
        EngineSettings settings = EngineSettings.defaults().withContainerSizeBytes(512L * (PAYLOAD + 49) + 40)
                .withVerifyOnPut(PutVerification.NONE);
        long t0 = System.nanoTime();
        int containers;
        try (DiskStoreEngine engine = DiskStoreEngine.open(dir.resolve("writer"), settings, S3Backend.factory(s3.withCacheDir(dir.resolve("wc"))))) {
            StorageUnit unit = engine.unit("u");
            List<CompletableFuture<Void>> commits = new ArrayList<>();
            try (BackupLease lease = unit.beginBackup()) {
                List<ChunkRef> refs = new ArrayList<>();
                byte[] sha = new byte[32];
                sha[0] = 1; // any stream hash but zero bytes, which mean none
                for (int i = 0; i < n; i++) {
                    byte[] raw = ByteBuffer.allocate(PAYLOAD).putLong(i).putLong(0x5eed).array();
                    Fingerprint fp = Fingerprint.compute(raw, 0, raw.length);
                    lease.put(fp, Codec.NONE, raw.length, raw);
                    refs.add(new ChunkRef(fp, raw.length));
                    if (refs.size() == PER_OBJECT || i == n - 1) {
                        commits.add(lease.commit("bench/obj" + (i / PER_OBJECT), new Recipe(List.copyOf(refs), (long) refs.size() * PAYLOAD, sha)));
                        refs.clear();
                    }
                }
                CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new)).join();
            }
            containers = (int) unit.stats().containers();
        }
        double write = (System.nanoTime() - t0) / 1e9;
        System.out.printf("wrote %,d chunks in %,d containers and %,d objects in %.1f s%n", n, containers, commits(n), write);

        Measured withCheckpoints = start(dir, "reader1", s3, settings);
        try (Bucket b = Bucket.open(s3)) {
            b.delete("units/u/index.snap");
            b.delete("units/u/catalog.snap");
        }
        Measured without = start(dir, "reader2", s3, settings);
        System.out.printf("cold start, empty cache, from the checkpoints: %.2f s (%s), %,d chunks, %,d objects%n",
                withCheckpoints.seconds(), withCheckpoints.requests(), withCheckpoints.chunks(), withCheckpoints.objects());
        System.out.printf("cold start, empty cache, no checkpoint (every index object and recipe): %.2f s (%s), %,d chunks, %,d objects%n",
                without.seconds(), without.requests(), without.chunks(), without.objects());
        System.out.println("(each start includes taking the unit's lease: " + (S3Server.shared() != null ? "write, 2 s wait, read back on S3Proxy" : "")
                + ")");
    }

    private static int commits(int n) {
        return (n + PER_OBJECT - 1) / PER_OBJECT;
    }

    private record Measured(double seconds, Map<String, Long> requests, long chunks, long objects) {
    }

    private static Measured start(Path dir, String name, S3Settings s3, EngineSettings settings) {
        long t = System.nanoTime();
        try (DiskStoreEngine engine = DiskStoreEngine.open(dir.resolve(name), settings, S3Backend.factory(s3.withCacheDir(dir.resolve(name + "-cache"))))) {
            StorageUnit unit = engine.unit("u");
            double s = (System.nanoTime() - t) / 1e9;
            UnitStats st = unit.stats();
            return new Measured(s, ((S3Backend) engine.backend()).requests().snapshot(), st.chunks(), st.objects());
        }
    }
}
