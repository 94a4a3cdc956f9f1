package io.gpdedup.client;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.protocol.model.ChunkRef;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.wire.ChunkUpload;
import io.gpdedup.store.engine.BackupLease;
import io.gpdedup.store.engine.DedupStoreEngine;
import io.gpdedup.store.net.StoreFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Not a test: measures the client and server over loopback with the real DedupStoreEngine in a
 * temp dir. Run with the test classpath:
 * {@code java -cp <test classpath> io.gpdedup.client.LoopbackBenchmark [MiB per stream] [streams]}.
 */
public final class LoopbackBenchmark {
    private static final int CHUNK = 256 * 1024;
    private static final int BATCH = 16;
    private static final int IN_FLIGHT = 4;

    public static void main(String[] args) throws Exception {
        int mib = args.length > 0 ? Integer.parseInt(args[0]) : 256;
        int streams = args.length > 1 ? Integer.parseInt(args[1]) : 1;
        Path dir = Files.createTempDirectory("gpdedup-bench");
        try (StoreFixture store = StoreFixture.start(dir)) {
            try (StoreClient client = store.connectA()) {
                latency("ping", 5000, () -> client.ping());
                Fingerprint[] fps = new Fingerprint[1024];
                Random r = new Random(1);
                for (int i = 0; i < fps.length; i++) {
                    byte[] b = new byte[32];
                    r.nextBytes(b);
                    fps[i] = Fingerprint.of(b);
                }
                try (BackupSession s = client.beginBackup()) {
                    latency("missing? batch of 1024 (all missing)", 1000, () -> s.missing(fps).join());
                }
            }
            ExecutorService pool = Executors.newFixedThreadPool(streams);
            List<List<ChunkUpload>> data = new ArrayList<>();
            for (int t = 0; t < streams; t++) {
                data.add(chunks(t, mib));
            }
            List<Future<double[]>> results = new ArrayList<>();
            long start = System.nanoTime();
            for (int t = 0; t < streams; t++) {
                int stream = t;
                results.add(pool.submit(() -> backup(store, stream, data.get(stream))));
            }
            double put = 0;
            for (Future<double[]> f : results) {
                put += f.get()[0];
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf(Locale.ROOT, "put+commit: %d stream(s) x %d MiB of %d KiB unique chunks, batches of %d, %d in flight: %.1f s, %.0f MiB/s%n",
                    streams, mib, CHUNK / 1024, BATCH, IN_FLIGHT, seconds, put / seconds);
            start = System.nanoTime();
            results.clear();
            for (int t = 0; t < streams; t++) {
                int stream = t;
                results.add(pool.submit(() -> restore(store, stream)));
            }
            double got = 0;
            for (Future<double[]> f : results) {
                got += f.get()[0];
            }
            seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf(Locale.ROOT, "get chunks: %d stream(s), batches of %d, %d in flight: %.1f s, %.0f MiB/s%n",
                    streams, BATCH, IN_FLIGHT, seconds, got / seconds);
            pool.shutdown();
        } finally {
            deleteTree(dir);
        }
        // The same puts straight into a DedupStoreEngine, no network: what the protocol adds is the difference.
        Path direct = Files.createTempDirectory("gpdedup-bench-direct");
        try (DedupStoreEngine engine = DedupStoreEngine.open(direct)) {
            List<ChunkUpload> chunks = chunks(0, mib);
            List<ChunkRef> refs = new ArrayList<>();
            long start = System.nanoTime();
            try (BackupLease lease = engine.unit("direct").beginBackup()) {
                for (ChunkUpload c : chunks) {
                    lease.put(c.fingerprint(), c.codec(), c.rawLength(), c.payload());
                    refs.add(new ChunkRef(c.fingerprint(), c.rawLength()));
                }
                lease.commit("direct", new Recipe(refs, (long) chunks.size() * CHUNK, Fingerprint.parse("5a".repeat(32)).toBytes())).join();
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.printf(Locale.ROOT, "engine put+commit in-process (no network), 1 stream x %d MiB: %.1f s, %.0f MiB/s%n",
                    mib, seconds, mib / seconds);
        } finally {
            deleteTree(direct);
        }
    }

    private static void deleteTree(Path dir) throws java.io.IOException {
        try (var walk = Files.walk(dir)) {
            walk.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
        }
    }

    /** The chunks of one stream, made (random, fingerprinted) before the clock starts. */
    private static List<ChunkUpload> chunks(int stream, int mib) {
        Random r = new Random(100 + stream);
        int n = mib * 1024 * 1024 / CHUNK;
        List<ChunkUpload> chunks = new ArrayList<>(n);
        for (int j = 0; j < n; j++) {
            byte[] raw = new byte[CHUNK];
            r.nextBytes(raw);
            chunks.add(new ChunkUpload(Fingerprint.compute(raw, 0, raw.length), Codec.NONE, CHUNK, raw));
        }
        return chunks;
    }

    private static double[] backup(StoreFixture store, int stream, List<ChunkUpload> chunks) {
        List<ChunkRef> refs = new ArrayList<>();
        for (ChunkUpload c : chunks) {
            refs.add(new ChunkRef(c.fingerprint(), c.rawLength()));
        }
        try (StoreClient client = store.connectA(); BackupSession s = client.beginBackup()) {
            ArrayDeque<CompletableFuture<Void>> inFlight = new ArrayDeque<>();
            for (int i = 0; i < chunks.size(); i += BATCH) {
                if (inFlight.size() >= IN_FLIGHT) {
                    inFlight.poll().join();
                }
                inFlight.add(s.put(chunks.subList(i, Math.min(chunks.size(), i + BATCH))));
            }
            inFlight.forEach(CompletableFuture::join);
            s.commit("bench/" + stream, new Recipe(refs, (long) chunks.size() * CHUNK, Fingerprint.parse("5a".repeat(32)).toBytes())).join();
        }
        return new double[] {(double) chunks.size() * CHUNK / (1 << 20)};
    }

    private static double[] restore(StoreFixture store, int stream) {
        try (StoreClient client = store.connectA()) {
            Recipe recipe = client.recipe("bench/" + stream).orElseThrow();
            Fingerprint[] all = recipe.chunks().stream().map(ChunkRef::fingerprint).toArray(Fingerprint[]::new);
            ArrayDeque<CompletableFuture<?>> inFlight = new ArrayDeque<>();
            long bytes = 0;
            for (int i = 0; i < all.length; i += BATCH) {
                if (inFlight.size() >= IN_FLIGHT) {
                    inFlight.poll().join();
                }
                inFlight.add(client.chunks(Arrays.copyOfRange(all, i, Math.min(all.length, i + BATCH))));
            }
            inFlight.forEach(CompletableFuture::join);
            bytes = recipe.totalLength();
            return new double[] {(double) bytes / (1 << 20)};
        }
    }

    private static void latency(String what, int n, Runnable op) {
        for (int i = 0; i < n / 5; i++) {
            op.run();
        }
        long[] t = new long[n];
        for (int i = 0; i < n; i++) {
            long s = System.nanoTime();
            op.run();
            t[i] = System.nanoTime() - s;
        }
        Arrays.sort(t);
        System.out.printf(Locale.ROOT, "%s: n=%d median %.3f ms, p90 %.3f ms, p99 %.3f ms%n", what, n,
                t[n / 2] / 1e6, t[n * 9 / 10] / 1e6, t[n * 99 / 100] / 1e6);
    }
}
