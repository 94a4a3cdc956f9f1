package io.gpdedup.store.engine;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A rough throughput probe (not a test): unique-data backups through the engine with verify on
 * put, then many small commits from 8 threads to show group commit at work.
 * {@code java -cp <test-classes>:<classes>:<deps> io.gpdedup.store.engine.EngineBench <dir>}
 */
public final class EngineBench {
    private EngineBench() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Files.createTempDirectory(Path.of(args.length > 0 ? args[0] : "/tmp"), "bench");
        try (DedupStoreEngine engine = DedupStoreEngine.open(dir)) {
            DedupStorageUnit unit = (DedupStorageUnit) engine.unit("bench");
            int chunk = 256 << 10;
            for (Codec codec : new Codec[] {Codec.NONE, Codec.ZSTD}) {
                byte[] data = TestObjects.data(codec.id(), 256 << 20, codec == Codec.ZSTD);
                List<byte[]> payloads = new ArrayList<>();
                List<Fingerprint> fps = new ArrayList<>();
                for (int off = 0; off < data.length; off += chunk) {
                    byte[] raw = java.util.Arrays.copyOfRange(data, off, off + chunk);
                    fps.add(Fingerprint.compute(raw, 0, raw.length));
                    payloads.add(TestObjects.encode(codec, raw));
                }
                long t0 = System.nanoTime();
                try (BackupLease lease = unit.beginBackup()) {
                    for (int i = 0; i < fps.size(); i++) {
                        lease.put(fps.get(i), codec, chunk, payloads.get(i));
                    }
                    List<ChunkRef> refs = fps.stream().map(f -> new ChunkRef(f, chunk)).toList();
                    lease.commit("big-" + codec, new Recipe(refs, data.length, TestObjects.sha256(data))).join();
                }
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf("put+commit 256 MiB, %s, 1 thread, verifyOnPut: %.0f MiB/s (raw)%n", codec, 256 / s);
            }
            int threads = 8;
            int perThread = 100;
            long[] before = unit.commitCounters();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            long t0 = System.nanoTime();
            List<Future<?>> fs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                fs.add(pool.submit(() -> {
                    for (int i = 0; i < perThread; i++) {
                        TestObjects.backup(unit, "small/" + thread + "/" + i, TestObjects.data(thread * 1000L + i, 8192, false), 8192, Codec.NONE);
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get();
            }
            double s = (System.nanoTime() - t0) / 1e9;
            pool.shutdown();
            long[] after = unit.commitCounters();
            System.out.printf("small commits: %d threads x %d: %.0f commits/s, %d commits in %d fsync batches%n",
                    threads, perThread, threads * perThread / s, after[1] - before[1], after[0] - before[0]);
        } finally {
            try (var walk = Files.walk(dir)) {
                for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }
}
