package io.gpdedup.bench.compare;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.tooling.StoreLauncher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code gpdedup-store serve} process on loopback with a config of its own under its own HOME
 * ({@link #writeConfig}), any free port and a metrics endpoint on another. Stopped with SIGTERM,
 * as an operator stops it.
 */
final class ComparedStore implements AutoCloseable {

    private final Path home;
    private final Process process;
    private final int port;
    private final Path log;
    private String metricsUrl; // found in the log on first use
    private static final Pattern METRICS = Pattern.compile("metrics on (http://\\S+/metrics)");
    private static final Pattern RECOMPRESSION_PENDING = Pattern.compile("^gpdedup_store_recompression_pending_containers (\\S+)$");
    /** Quiet time before the store recompresses, in the config {@link #writeConfig} writes. */
    static final int QUIET_SECONDS = 1;
    private static final Pattern RECEIVED = Pattern.compile("^gpdedup_store_network_received_bytes_total ([0-9.eE+]+)$");
    private static final Pattern BUCKET_REQUESTS = Pattern.compile("^gpdedup_store_bucket_requests_total\\{operation=\"(\\w+)\"\\} ([0-9.eE+]+)$");

    private ComparedStore(Path home, Process process, int port, Path log) {
        this.log = log;
        this.home = home;
        this.process = process;
        this.port = port;
    }

    /**
     * Writes {@code home/.gpdedup/store.yaml}: the demo unit and user on loopback, recompression
     * {@value #QUIET_SECONDS} s after a backup (instead of 30) so that a run need not wait long for
     * it, and, with a {@code bucket}, the units in that bucket under its prefix (credentials from
     * the environment, docs/s3.md); {@code encrypted}: the units encrypted at rest under a new key
     * in {@code home/.gpdedup/store.key}.
     */
    static void writeConfig(Path home, GpdedupTool.Bucket bucket, boolean encrypted) throws IOException {
        Files.createDirectories(home.resolve(".gpdedup"));
        StringBuilder yaml = new StringBuilder("listen-address: 127.0.0.1\ndata-dir: store\nrecompress-after-idle-seconds: " + QUIET_SECONDS + "\n");
        if (encrypted) {
            Path key = home.resolve(".gpdedup/store.key");
            Files.deleteIfExists(key);
            Files.createFile(key, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                    java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
            Files.writeString(key, io.gpdedup.store.crypt.Kek.generate().toText());
            yaml.append("encryption:\n  key-file: store.key\n");
        }
        if (bucket != null) {
            yaml.append("storage:\n  type: s3\n  endpoint: ").append(bucket.endpoint()).append("\n  bucket: ").append(bucket.name())
                    .append("\n  prefix: ").append(bucket.prefix()).append("\n  path-style: true\n  cache-bytes: 1GiB\n");
        }
        yaml.append("units:\n  gpdedup:\n    users:\n      gpdedup: ")
                .append(io.gpdedup.store.auth.PasswordHash.create("gpdedup".toCharArray(), 100_000).encoded()).append('\n');
        Files.writeString(home.resolve(".gpdedup/store.yaml"), yaml);
    }

    /** Starts a store whose config and data live under {@code home}, its metrics on a free port; waits until it listens. */
    static ComparedStore start(GpdedupCommands commands, Path home, Path log, long timeoutSeconds) throws IOException {
        Files.createDirectories(home);
        List<String> cmd = new ArrayList<>(commands.store());
        cmd.addAll(List.of("serve", "--port", "0", "--metrics-port", "0"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.environment().put("HOME", home.toString());
        try {
            StoreLauncher.Started s = StoreLauncher.start(pb, home.resolve("store.port"), Duration.ofSeconds(timeoutSeconds), log);
            return new ComparedStore(home, s.process(), s.port(), log);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while gpdedup-store started");
        }
    }

    int port() {
        return port;
    }

    long pid() {
        return process.pid();
    }

    /** The store's data directory (the demo config's default, under its HOME). */
    Path dataDirectory() {
        return home.resolve(".gpdedup/store");
    }

    /** Requests the store has sent to its bucket, by operation, read from its metrics endpoint; empty without one. */
    Map<String, Long> bucketRequests() throws IOException {
        Map<String, Long> out = new TreeMap<>();
        for (String line : metrics()) {
            Matcher r = BUCKET_REQUESTS.matcher(line);
            if (r.matches()) {
                out.put(r.group(1), (long) Double.parseDouble(r.group(2)));
            }
        }
        return out;
    }

    /** Bytes the store has read from its client connections since it started, from its metrics; -1 when it does not say. */
    long receivedBytes() throws IOException {
        return (long) value(RECEIVED, -1);
    }

    /**
     * Waits until the store has recompressed every container the backups wrote (its metrics say
     * none is pending); at once for a store that does not say.
     */
    void awaitRecompression(long timeoutSeconds) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
        while (true) {
            double pending = value(RECOMPRESSION_PENDING, 0);
            if (Double.isNaN(pending)) {
                throw new IOException("gpdedup-store does not say how many containers it has left to recompress");
            }
            if (pending == 0) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IOException("gpdedup-store still had " + (long) pending + " containers to recompress after " + timeoutSeconds + " s");
            }
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while waiting for the store's recompression");
            }
        }
    }

    /** The value of the one-series metric {@code series} matches (its first group), {@code absent} when the store does not show it. */
    private double value(Pattern series, double absent) throws IOException {
        for (String line : metrics()) {
            Matcher m = series.matcher(line);
            if (m.matches()) {
                return Double.parseDouble(m.group(1));
            }
        }
        return absent;
    }

    /** The lines of the store's metrics endpoint; empty when it has none. */
    private List<String> metrics() throws IOException {
        if (metricsUrl == null) {
            // Logged once at start: the log is read until the line is found, not at every poll.
            Matcher m = METRICS.matcher(readQuietly(log));
            while (m.find()) {
                metricsUrl = m.group(1);
            }
        }
        String url = metricsUrl;
        if (url == null) {
            return List.of();
        }
        try (java.io.InputStream in = java.net.URI.create(url).toURL().openStream()) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip).toList();
        }
    }

    /** CPU the store has used since it started, in ns; -1 when unknown. */
    long cpuNanos() {
        return ProcStat.cpuNanos(process.pid());
    }

    /** The demo unit's physical bytes (stored chunk payloads), asked over the store's own protocol. */
    long physicalBytes() {
        try (StoreClient client = StoreClient.connect(ClientSettings.of("127.0.0.1", port, "gpdedup", "gpdedup", "gpdedup"))) {
            return client.stats().physicalBytes();
        }
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(90, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IOException("gpdedup-store did not stop within 90 s of SIGTERM; killed");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private static String readQuietly(Path log) {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "";
        }
    }
}
