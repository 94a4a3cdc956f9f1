package io.gpdedup.bench.workload;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdOutputStream;
import io.gpdedup.dedup.chunk.ChunkStream;
import io.gpdedup.dedup.chunk.Chunker;
import io.gpdedup.dedup.chunk.ChunkerParams;
import io.gpdedup.pg.TableShape;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.store.OneLineErrors;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Which average chunk size should be the default? Chunks a base version of a generated table
 * ({@code orders} unless {@code --table} says otherwise) and each standard mutation of it at
 * several averages (min = avg/4, max = avg*4) and reports what a second backup would have to
 * store (bytes of chunks the base lacks) against the per-chunk costs: index memory in the store
 * and lookup traffic on the wire. Markdown on stdout.
 */
@Command(name = "chunk-size-study", mixinStandardHelpOptions = true,
        description = "Dedup of COPY text after typical table mutations, per average chunk size.")
public final class ChunkSizeStudy implements Callable<Integer> {
    @Option(names = "--size-mib", description = "Base stream size in MiB (default ${DEFAULT-VALUE}).")
    long sizeMib = 256;

    @Option(names = "--seed", description = "Seed of the table and the mutations (default ${DEFAULT-VALUE}).")
    long seed = 1;

    @Option(names = "--table", defaultValue = "orders", converter = TableShapeConverter.class,
            description = "The generated table: orders, lineitem or accounts (default ${DEFAULT-VALUE}).")
    TableShape table;

    @Option(names = "--avg", split = ",", description = "Average chunk sizes in bytes (default ${DEFAULT-VALUE}).")
    List<Integer> averages = List.of(16 << 10, 64 << 10, 128 << 10, 256 << 10, 1 << 20);

    @Option(names = "--index-bytes-per-chunk", description = "Store index RAM per chunk (default ${DEFAULT-VALUE}).")
    int indexBytesPerChunk = 100;

    @Option(names = "--lookup-bytes-per-chunk",
            description = "Wire bytes per chunk on lookup: fingerprint + framing (default ${DEFAULT-VALUE}).")
    int lookupBytesPerChunk = Fingerprint.LENGTH + 16;

    @Option(names = "--threads", description = "Worker threads (default ${DEFAULT-VALUE}).")
    int threads = 2;

    @Option(names = "--out", description = "Also write the report to this file.")
    Path out;

    private static final double TIB = 1L << 40;
    private static final double MIB = 1 << 20;

    public static void main(String[] args) {
        int code = OneLineErrors.on(new ChunkSizeStudy()).execute(args);
        if (code != 0) {
            System.exit(code);
        }
    }

    /** What one pass over one stream with one chunker saw. */
    record Pass(long bytes, long chunks, long storedBytes, long newBytes, long newChunks, Set<Long> fingerprints) {
    }

    @Override
    public Integer call() throws Exception {
        long started = System.nanoTime();
        TableVersion base = TableVersion.baseOfSize(table, seed, sizeMib << 20);
        Map<String, TableVersion> versions = new LinkedHashMap<>();
        List<Mutation> standard = Mutation.standard();
        for (int i = 0; i < standard.size(); i++) {
            versions.put(standard.get(i).label(), standard.get(i).applyTo(base, seed * 1000 + i));
        }
        Mutation all = new Mutation.Sequence(standard);
        versions.put(all.label(), all.applyTo(base, seed * 1000 + standard.size()));

        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            Future<Long> baseZstd = pool.submit(() -> zstdSize(base));
            Map<String, Future<Long>> changed = new LinkedHashMap<>();
            versions.forEach((label, v) -> changed.put(label, pool.submit(() -> v.changedBytesSince(base))));
            Map<Integer, Future<Pass>> basePasses = new LinkedHashMap<>();
            for (int avg : averages) {
                basePasses.put(avg, pool.submit(() -> chunk(base, ChunkerParams.ofAverage(avg), null)));
            }
            Map<Integer, Map<String, Future<Pass>>> passes = new LinkedHashMap<>();
            for (int avg : averages) {
                Map<String, Future<Pass>> byVersion = new LinkedHashMap<>();
                for (Map.Entry<String, TableVersion> e : versions.entrySet()) {
                    byVersion.put(e.getKey(), pool.submit(() -> chunk(e.getValue(), ChunkerParams.ofAverage(avg),
                            basePasses.get(avg).get().fingerprints())));
                }
                passes.put(avg, byVersion);
            }
            String report = report(base, versions, get(baseZstd), changed, basePasses, passes, started);
            System.out.print(report);
            if (out != null) {
                Files.writeString(out, report, StandardCharsets.UTF_8);
            }
        } finally {
            pool.shutdownNow();
        }
        return 0;
    }

    private String report(TableVersion base, Map<String, TableVersion> versions, long baseZstd,
            Map<String, Future<Long>> changed, Map<Integer, Future<Pass>> basePasses,
            Map<Integer, Map<String, Future<Pass>>> passes, long startedNanos) throws Exception {
        StringBuilder s = new StringBuilder();
        Pass anyBase = get(basePasses.values().iterator().next());
        s.append(String.format(Locale.ROOT, "Base: %s table, %d rows, %.1f MiB of COPY text (seed %d); whole-stream zstd level 3: "
                + "%.2fx.%n%n", table.label(), base.rowCount(), anyBase.bytes() / MIB, seed, (double) anyBase.bytes() / baseZstd));

        s.append("| mutation | rows | stream MiB | changed rows' MiB |\n|---|---|---|---|\n");
        for (Map.Entry<String, TableVersion> e : versions.entrySet()) {
            Pass p = get(passes.get(averages.get(0)).get(e.getKey()));
            s.append(String.format(Locale.ROOT, "| %s | %d | %.1f | %.2f |%n", e.getKey(), e.getValue().rowCount(),
                    p.bytes() / MIB, get(changed.get(e.getKey())) / MIB));
        }

        s.append("\n| min/avg/max | chunks in base | mean chunk | zstd-3 per chunk | index RAM per TiB stored"
                + " | lookup bytes per TiB backed up |\n|---|---|---|---|---|---|\n");
        for (int avg : averages) {
            Pass p = get(basePasses.get(avg));
            double mean = (double) p.bytes() / p.chunks();
            s.append(String.format(Locale.ROOT, "| %s | %d | %.0f KiB | %.2fx | %.2f GiB | %.0f MiB (%.3f%%) |%n",
                    ChunkerParams.ofAverage(avg), p.chunks(), mean / 1024, (double) p.bytes() / p.storedBytes(),
                    TIB / mean * indexBytesPerChunk / (1 << 30), TIB / mean * lookupBytesPerChunk / MIB,
                    100.0 * lookupBytesPerChunk / mean));
        }

        s.append("\nNew bytes after each mutation (bytes of chunks the base does not hold), in MiB, with the"
                + " amplification over the changed rows' bytes and the dedup ratio of the second backup"
                + " (stream bytes / new bytes):\n\n| mutation | changed MiB |");
        for (int avg : averages) {
            s.append(' ').append(kib(avg)).append(" avg |");
        }
        s.append("\n|---|---|").append("---|".repeat(averages.size())).append('\n');
        for (String label : versions.keySet()) {
            double changedBytes = get(changed.get(label));
            s.append(String.format(Locale.ROOT, "| %s | %.2f |", label, changedBytes / MIB));
            for (int avg : averages) {
                Pass p = get(passes.get(avg).get(label));
                s.append(String.format(Locale.ROOT, " %.2f (%.1fx; dedup %.1f:1) |", p.newBytes() / MIB,
                        p.newBytes() / changedBytes, (double) p.bytes() / p.newBytes()));
            }
            s.append('\n');
        }
        s.append(String.format(Locale.ROOT, "%nRun time %.0f s on %d threads.%n",
                (System.nanoTime() - startedNanos) / 1e9, threads));
        return s.toString();
    }

    private static String kib(int bytes) {
        return bytes >= (1 << 20) ? (bytes >> 20) + " MiB" : (bytes >> 10) + " KiB";
    }

    /** Chunks {@code v}; with {@code base}, counts the bytes of chunks not in it (each distinct chunk once). */
    static Pass chunk(TableVersion v, ChunkerParams params, Set<Long> base) throws IOException {
        long t0 = System.nanoTime();
        MessageDigest md = Fingerprint.newDigest();
        byte[] digest = new byte[Fingerprint.LENGTH];
        Set<Long> seen = new HashSet<>();
        long bytes = 0;
        long chunks = 0;
        long stored = 0;
        long newBytes = 0;
        long newChunks = 0;
        byte[] compressed = new byte[(int) Zstd.compressBound(params.maxSize())];
        try (ChunkStream cs = new Chunker(params).stream(v.open()); ZstdCompressCtx zstd = new ZstdCompressCtx()) {
            zstd.setLevel(3);
            while (cs.next()) {
                md.update(cs.buffer(), cs.bufferOffset(), cs.length());
                md.digest(digest, 0, digest.length);
                long key = Fingerprint.of(digest).prefix64();
                bytes += cs.length();
                chunks++;
                boolean fresh = seen.add(key);
                if (base == null) {
                    // The store keeps a chunk raw when compression does not shrink it.
                    stored += fresh ? Math.min(cs.length(), zstd.compressByteArray(compressed, 0, compressed.length,
                            cs.buffer(), cs.bufferOffset(), cs.length())) : 0;
                } else if (fresh && !base.contains(key)) {
                    newBytes += cs.length();
                    newChunks++;
                }
            }
        } catch (java.security.DigestException e) {
            throw new IllegalStateException(e);
        }
        System.err.printf(Locale.ROOT, "chunked %s at %s: %d chunks in %.1f s%n", v, params, chunks,
                (System.nanoTime() - t0) / 1e9);
        return new Pass(bytes, chunks, stored, newBytes, newChunks, base == null ? seen : Set.of());
    }

    /** Size of the whole stream compressed with zstd level 3 (one frame, one thread). */
    static long zstdSize(TableVersion v) throws IOException {
        long[] count = {0};
        OutputStream counter = new OutputStream() {
            @Override
            public void write(int b) {
                count[0]++;
            }

            @Override
            public void write(byte[] b, int off, int len) {
                count[0] += len;
            }
        };
        try (InputStream in = v.open(); ZstdOutputStream z = new ZstdOutputStream(counter, 3)) {
            in.transferTo(z);
        }
        return count[0];
    }

    private static <T> T get(Future<T> f) throws InterruptedException {
        try {
            return f.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof IOException io) {
                throw new UncheckedIOException(io);
            }
            throw new IllegalStateException(e.getCause());
        }
    }
}
