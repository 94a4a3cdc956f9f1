package io.gpdedup.store.engine;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.report.UnitStats;
import io.gpdedup.store.s3.Bucket;
import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.store.s3.TestBuckets;
import io.gpdedup.testsupport.S3Server;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * A measurement (not a test): the cold start of a store on S3 (S3Proxy, filesystem backend, its
 * buckets under the scratch directory) for a unit of N chunks (default 10^6). Unless the scratch
 * directory already holds such a unit, it writes N distinct 64-byte chunks through the engine
 * into containers of 512 records each (a 64 MiB container of 128 KiB chunks holds as many),
 * committed as objects of 500 chunks, and stops the store cleanly. Then it times starts of other
 * stores with an empty cache: from the checkpoints the clean stop left ({@code runs} times,
 * default 3), and once with both checkpoints set aside (a crash before any checkpoint: every
 * index object and every recipe is read; skipped when {@code runs} is negative). After the first
 * start it measures the heap the open unit holds (used heap after a full collection, with and
 * without the unit open).
 *
 * <pre>java -cp &lt;store test classpath&gt; io.gpdedup.store.engine.S3StartBench [chunks] [scratch dir] [runs]</pre>
 */
public final class S3StartBench {
    private static final int PAYLOAD = 64;
    private static final int PER_OBJECT = 500;
    static final String BUCKET = "start-bench";

    private S3StartBench() {
    }

    public static void main(String[] args) throws Exception {
        System.setProperty("java.util.logging.SimpleFormatter.format", "%1$tT.%1$tL %4$s %5$s%n");
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Path dir = Path.of(args.length > 1 ? args[1] : "/tmp").resolve("s3start-" + n);
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        Files.createDirectories(dir);
        try (S3Server server = S3Server.start(dir.resolve("s3"))) {
            Path generated = dir.resolve("generated");
            if (!Files.exists(generated)) {
                Files.createDirectories(server.bucketDirectory(BUCKET));
                generate(n, dir, settings(server, dir.resolve("wc")));
                Files.writeString(generated, "done\n");
            }
            S3Settings s3 = settings(server, dir.resolve("rc"));
            List<Double> times = new ArrayList<>();
            for (int i = 0; i < Math.max(1, Math.abs(runs)); i++) {
                Measured m = start(dir, "reader" + i, s3, i == 0);
                times.add(m.seconds());
                System.out.printf("cold start, empty cache, from the checkpoints: %.2f s (%s), %,d chunks, %,d objects%n",
                        m.seconds(), m.requests(), m.chunks(), m.objects());
            }
            System.out.printf("median of %d: %.2f s, load average %.2f%n", times.size(), times.stream().sorted().toList().get(times.size() / 2),
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            if (runs > 0) {
                withoutCheckpoints(dir, s3);
            }
            System.out.println("(each start includes taking the unit's lease: write, 2 s wait, read back on S3Proxy)");
        }
    }

    private static S3Settings settings(S3Server server, Path cache) {
        return TestBuckets.at(server.endpoint(), BUCKET, cache);
    }

    private static EngineSettings engineSettings() {
        return EngineSettings.defaults().withContainerSizeBytes(512L * (PAYLOAD + 49) + 40).withVerifyOnPut(PutVerification.NONE);
    }

    private static void generate(int n, Path dir, S3Settings s3) throws Exception {
        long t0 = System.nanoTime();
        int containers;
        List<CompletableFuture<Void>> commits = new ArrayList<>();
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir.resolve("writer"), engineSettings(), S3Backend.factory(s3))) {
            StorageUnit unit = engine.unit("u");
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
                    if (commits.size() >= 64) {
                        CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new)).join(); // bounds the writer's memory
                        commits.clear();
                    }
                }
                CompletableFuture.allOf(commits.toArray(CompletableFuture[]::new)).join();
            }
            containers = (int) unit.stats().containers();
        }
        System.out.printf("wrote %,d chunks in %,d containers and %,d objects in %.1f s%n", n, containers, (n + PER_OBJECT - 1) / PER_OBJECT,
                (System.nanoTime() - t0) / 1e9);
    }

    /** A start after a crash before the first checkpoints: they are set aside, and put back after. */
    private static void withoutCheckpoints(Path dir, S3Settings s3) throws Exception {
        String[] keys = {"units/u/index.snap", "units/u/catalog.snap"};
        byte[][] saved = new byte[keys.length][];
        try (Bucket b = Bucket.open(s3)) {
            for (int i = 0; i < keys.length; i++) {
                saved[i] = b.get(keys[i]).orElseThrow();
                b.delete(keys[i]);
            }
        }
        try {
            Measured m = start(dir, "reader-nocp", s3, false);
            System.out.printf("cold start, empty cache, no checkpoint (every index object and recipe): %.2f s (%s), %,d chunks, %,d objects%n",
                    m.seconds(), m.requests(), m.chunks(), m.objects());
        } finally {
            try (Bucket b = Bucket.open(s3)) {
                for (int i = 0; i < keys.length; i++) {
                    b.put(keys[i], saved[i]);
                }
            }
        }
    }

    private record Measured(double seconds, Map<String, Long> requests, long chunks, long objects) {
    }

    private static Measured start(Path dir, String name, S3Settings s3, boolean heap) throws Exception {
        long before = heap ? usedAfterGc() : 0;
        long t = System.nanoTime();
        Measured m;
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir.resolve(name), engineSettings(), S3Backend.factory(s3.withCacheDir(dir.resolve(name + "-cache"))))) {
            StorageUnit unit = engine.unit("u");
            double s = (System.nanoTime() - t) / 1e9;
            UnitStats st = unit.stats();
            m = new Measured(s, ((S3Backend) engine.backend()).requests().snapshot(), st.chunks(), st.objects());
            if (heap) {
                long open = usedAfterGc();
                System.out.printf("heap used after a full GC: %,d bytes with the unit open, %,d before: %.1f bytes per chunk%n", open, before,
                        (double) (open - before) / st.chunks());
            }
        }
        return m;
    }

    private static long usedAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
