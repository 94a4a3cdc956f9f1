package io.gpdedup.bench.compare;

import com.github.luben.zstd.ZstdOutputStream;
import io.gpdedup.bench.workload.Mutation;
import io.gpdedup.bench.workload.TableVersion;
import io.gpdedup.pg.TableShape;
import io.gpdedup.protocol.concurrent.Futures;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The four table versions a comparison backs up, one after the other: a base table of the
 * requested shape and size, then 5% of rows updated in one clustered run, then 1% new rows
 * inserted in 10 runs in the middle, then 0.1% of rows updated one by one at scattered places.
 * Each version changes the one before it, as a table does between nightly backups. Written to
 * files once, so that every tool reads exactly the same bytes and generation costs no tool
 * anything.
 */
final class StreamSet {
    static final double CLUSTERED_FRACTION = 0.05;
    static final double INSERTED_FRACTION = 0.01;
    static final int INSERTED_RUNS = 10;
    static final double SCATTERED_FRACTION = 0.001;
    static final String CLUSTERED_LABEL = percent(CLUSTERED_FRACTION) + " of rows updated in one clustered run";
    static final String INSERTED_LABEL = percent(INSERTED_FRACTION) + " new rows inserted in " + INSERTED_RUNS + " runs in the middle";
    static final String SCATTERED_LABEL = percent(SCATTERED_FRACTION) + " of rows updated one by one at scattered places";

    private final List<StreamFile> files;
    private final double zstdRatio;

    StreamSet(List<StreamFile> files, double zstdRatio) {
        this.files = List.copyOf(files);
        this.zstdRatio = zstdRatio;
    }

    /** Versions in backup order: base, clustered, inserted, scattered. */
    public List<StreamFile> files() {
        return files;
    }

    public StreamFile base() {
        return files.get(0);
    }

    /** Base length over its zstd level-3 size (one frame): how compressible the workload is. */
    double zstdRatio() {
        return zstdRatio;
    }

    /** The table versions of a comparison, in order, without generating anything. */
    public static List<TableVersion> versions(TableShape table, long baseBytes, long seed) {
        TableVersion base = TableVersion.baseOfSize(table, seed, baseBytes);
        TableVersion clustered = new Mutation.ClusteredUpdate(CLUSTERED_FRACTION).applyTo(base, seed + 1);
        TableVersion inserted = new Mutation.InsertedRuns(INSERTED_FRACTION, INSERTED_RUNS).applyTo(clustered, seed + 2);
        TableVersion scattered = new Mutation.ScatteredUpdates(SCATTERED_FRACTION).applyTo(inserted, seed + 3);
        return List.of(base, clustered, inserted, scattered);
    }

    private static final String MANIFEST = "streams.properties";

    /** Makes a set of streams in a directory: a generated table's, or a user's table's versions. */
    interface Maker {
        StreamSet make() throws IOException;
    }

    /**
     * The streams in {@code dir} if a previous run wrote them there for the same table, size and
     * seed and they still have their recorded lengths; otherwise generates them there. Saves the
     * minutes of generation when tuning one tool against the same bytes.
     */
    static StreamSet reuseOrGenerate(Path dir, TableShape table, long baseBytes, long seed, int threads) throws IOException {
        Map<String, String> origin = new LinkedHashMap<>();
        origin.put("table", table.label());
        origin.put("size", String.valueOf(baseBytes));
        origin.put("seed", String.valueOf(seed));
        return reuseOrMake(dir, origin, () -> generate(dir, table, baseBytes, seed, threads));
    }

    /**
     * The streams {@code dir}'s manifest lists if it records the same {@code origin} (what the
     * streams were made from) and every file still has its recorded length; otherwise those
     * {@code make} writes, recorded in the manifest for the next run.
     */
    static StreamSet reuseOrMake(Path dir, Map<String, String> origin, Maker make) throws IOException {
        Path manifest = dir.resolve(MANIFEST);
        if (Files.isRegularFile(manifest)) {
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(manifest)) {
                p.load(in);
            }
            // Streams written before there was a choice of table are of the orders table.
            if (p.getProperty("table") == null && p.getProperty("copy-file") == null) {
                p.setProperty("table", TableShape.ORDERS.label());
            }
            StreamSet kept = origin.entrySet().stream().allMatch(e -> e.getValue().equals(p.getProperty(e.getKey()))) ? listed(dir, p) : null;
            if (kept != null) {
                return kept;
            }
        }
        Files.createDirectories(dir);
        StreamSet set = make.make();
        Properties p = new Properties();
        origin.forEach(p::setProperty);
        p.setProperty("zstd", String.valueOf(set.zstdRatio()));
        for (int i = 0; i < set.files().size(); i++) {
            StreamFile f = set.files().get(i);
            String k = "file." + i + ".";
            p.setProperty(k + "step", f.step());
            p.setProperty(k + "label", f.label());
            // A user's table stays where it is; the versions live in dir.
            p.setProperty(k + "path", f.path().startsWith(dir) ? dir.relativize(f.path()).toString() : f.path().toAbsolutePath().toString());
            p.setProperty(k + "length", String.valueOf(f.length()));
            p.setProperty(k + "sha256", f.sha256());
            p.setProperty(k + "least", String.valueOf(f.leastNewBytes()));
        }
        try (OutputStream out = Files.newOutputStream(manifest)) {
            p.store(out, "gpdedup-bench compare streams");
        }
        return set;
    }

    /** The four files a manifest lists, or null when one is gone or has another length. */
    private static StreamSet listed(Path dir, Properties p) throws IOException {
        List<StreamFile> files = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String k = "file." + i + ".";
            // Manifests from before a user's table could be kept name each file after its step.
            Path path = dir.resolve(p.getProperty(k + "path", p.getProperty(k + "step") + ".copy"));
            long length = Long.parseLong(p.getProperty(k + "length"));
            if (!Files.isRegularFile(path) || Files.size(path) != length) {
                return null;
            }
            files.add(new StreamFile(p.getProperty(k + "step"), p.getProperty(k + "label"), path, length, p.getProperty(k + "sha256"),
                    Long.parseLong(p.getProperty(k + "least"))));
        }
        return new StreamSet(files, Double.parseDouble(p.getProperty("zstd")));
    }

    /** Writes the four versions into {@code dir} on {@code threads} threads. */
    public static StreamSet generate(Path dir, TableShape table, long baseBytes, long seed, int threads) throws IOException {
        Files.createDirectories(dir);
        List<TableVersion> v = versions(table, baseBytes, seed);
        String[] steps = {"base", "clustered", "inserted", "scattered"};
        String[] labels = {"base table", CLUSTERED_LABEL, INSERTED_LABEL, SCATTERED_LABEL};
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            List<Future<Written>> written = new ArrayList<>();
            List<Future<Long>> least = new ArrayList<>();
            for (int i = 0; i < v.size(); i++) {
                TableVersion version = v.get(i);
                Path file = dir.resolve(steps[i] + ".copy");
                boolean measureZstd = i == 0;
                written.add(pool.submit(() -> write(version, file, measureZstd)));
                TableVersion previous = i == 0 ? null : v.get(i - 1);
                least.add(pool.submit(() -> previous == null ? -1L : version.changedBytesSince(previous)));
            }
            List<StreamFile> files = new ArrayList<>();
            double ratio = 0;
            for (int i = 0; i < v.size(); i++) {
                Written w = await(written.get(i));
                if (i == 0) {
                    ratio = (double) w.length / w.zstdLength;
                }
                long l = await(least.get(i));
                files.add(new StreamFile(steps[i], labels[i], dir.resolve(steps[i] + ".copy"), w.length, w.sha256,
                        l < 0 ? w.length : l));
            }
            return new StreamSet(files, ratio);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * {@code count} base tables of {@code totalBytes / count} bytes each with seeds of their own,
     * so that no two share content: the streams of segments that back up at the same time.
     */
    static List<StreamFile> unrelated(Path dir, TableShape table, long totalBytes, int count, long seed, int threads) throws IOException {
        Files.createDirectories(dir);
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
        try {
            List<Future<Written>> written = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                TableVersion version = TableVersion.baseOfSize(table, seed + 1000 + i, totalBytes / count);
                Path file = dir.resolve("stream-" + i + ".copy");
                written.add(pool.submit(() -> write(version, file, false)));
            }
            List<StreamFile> files = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Written w = await(written.get(i));
                files.add(new StreamFile("stream-" + i, "unrelated base table " + (i + 1) + " of " + count,
                        dir.resolve("stream-" + i + ".copy"), w.length, w.sha256, w.length));
            }
            return files;
        } finally {
            pool.shutdownNow();
        }
    }

    private record Written(long length, String sha256, long zstdLength) {
    }

    /** The result of one generating task, its failure as the IOException it was or wraps. */
    private static <T> T await(Future<T> task) throws IOException {
        return Futures.await(task, c -> c instanceof IOException io ? io : new IOException("generating streams failed: " + c, c),
                e -> new IOException("interrupted while generating streams", e));
    }

    private static Written write(TableVersion version, Path file, boolean measureZstd) throws IOException {
        MessageDigest sha = sha256();
        CountingSink zstdSink = new CountingSink();
        byte[] buf = new byte[1 << 20];
        long length = 0;
        try (InputStream in = version.open();
             OutputStream out = Files.newOutputStream(file);
             OutputStream zstd = measureZstd ? new ZstdOutputStream(zstdSink, 3) : OutputStream.nullOutputStream()) {
            int n;
            while ((n = in.readNBytes(buf, 0, buf.length)) > 0) {
                out.write(buf, 0, n);
                sha.update(buf, 0, n);
                zstd.write(buf, 0, n);
                length += n;
            }
        }
        return new Written(length, HexFormat.of().formatHex(sha.digest()), zstdSink.count);
    }

    static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    private static String percent(double f) {
        double p = f * 100;
        return (p == Math.rint(p) ? String.valueOf((long) p) : String.valueOf(p)) + "%";
    }

    /** Counts what is written to it and keeps nothing. */
    static final class CountingSink extends OutputStream {
        long count;

        @Override
        public void write(int b) {
            count++;
        }

        @Override
        public void write(byte[] b, int off, int len) {
            count += len;
        }
    }
}
