package io.gpdedup.bench.runner;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.tooling.StoreLauncher;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real {@code gpdedup-store} process of the distribution, on a free port of 127.0.0.1, with an
 * appliance profile, a trace of what its throttle let through, a fresh data directory and HOME
 * under a work directory, and a random password. Stopped with SIGTERM on close.
 */
final class LiveStore implements AutoCloseable {
    public static final String UNIT = "bench";
    public static final String USER = "bench";
    /**
     * The throttle holds an engine thread while a stream waits for its share: more threads than the
     * largest run has streams (80 plugin calls for 8 hosts x 10 files, plus restores).
     */
    static final int ENGINE_THREADS = 256;
    private static final Pattern METRICS = Pattern.compile("metrics on http://(\\S+):(\\d+)/");

    private final Process process;
    private final Path workDir;
    private final int port;
    private final int metricsPort;
    private final String password;
    private final Path trace;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private LiveStore(Process process, Path workDir, int port, int metricsPort, String password, Path trace) {
        this.process = process;
        this.workDir = workDir;
        this.port = port;
        this.metricsPort = metricsPort;
        this.password = password;
        this.trace = trace;
    }

    /**
     * Starts the store of {@code dist} under {@code workDir} (created) with the profile, when given
     * (through {@code gpdedup-appliance}, the store with the simulation), and waits until it listens.
     */
    public static LiveStore start(Installation dist, Path workDir, Path profile) throws IOException {
        String store = profile == null ? Installation.STORE : Installation.APPLIANCE_STORE;
        return start(List.of(dist.executable(store).toString()), workDir, profile, List.of());
    }

    /**
     * As {@link #start(Installation, Path, Path)} with {@code storeCommand} running gpdedup-store (its
     * launcher, or a JVM and its main class) and {@code extraConfig} as more lines of its config
     * (TLS, say); without a profile the store is a plain one, no appliance.
     */
    static LiveStore start(List<String> storeCommand, Path workDir, Path profile, List<String> extraConfig) throws IOException {
        Files.createDirectories(workDir);
        Path home = Files.createDirectories(workDir.resolve("home"));
        byte[] secret = new byte[12];
        new SecureRandom().nextBytes(secret);
        String password = HexFormat.of().formatHex(secret);
        Path config = workDir.resolve("store.yaml");
        List<String> yaml = new ArrayList<>(List.of(
                "listen-address: 127.0.0.1",
                "port: 0",
                "metrics-port: 0",
                "data-dir: " + workDir.resolve("data").toAbsolutePath(),
                "engine-threads: " + ENGINE_THREADS,
                "shutdown-grace-seconds: 10"));
        yaml.addAll(extraConfig);
        yaml.add("units:");
        yaml.add("  " + UNIT + ":");
        yaml.add("    users:");
        yaml.add("      " + USER + ": '" + PasswordHash.create(password.toCharArray(), 1_000).encoded() + "'");
        Files.write(config, yaml, StandardCharsets.UTF_8);
        Path trace = workDir.resolve("appliance-trace.csv");
        List<String> cmd = new ArrayList<>(storeCommand);
        cmd.addAll(List.of("serve", "--config", config.toString()));
        if (profile != null) {
            cmd.addAll(List.of("--appliance-profile", profile.toAbsolutePath().toString(), "--appliance-trace", trace.toString()));
        }
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("HOME", home.toString());
        pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        pb.redirectOutput(workDir.resolve("store.out").toFile());
        Path log = workDir.resolve("store.log");
        pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        StoreLauncher.Started started;
        try {
            started = StoreLauncher.start(pb, workDir.resolve("store.port"), Duration.ofSeconds(60), log);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while gpdedup-store started");
        }
        Process p = started.process();
        // The store logs its metrics address before it writes the port file; the log may lag a little behind.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            Matcher m = METRICS.matcher(Files.readString(log));
            if (m.find()) {
                return new LiveStore(p, workDir, started.port(), Integer.parseInt(m.group(2)), password, profile == null ? null : trace);
            }
            if (System.nanoTime() > deadline) {
                p.destroyForcibly();
                throw new IOException("gpdedup-store announced no metrics address: " + Files.readString(log).strip());
            }
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while gpdedup-store started");
            }
        }
    }

    /** The store process's id, to measure its CPU. */
    public long pid() {
        return process.pid();
    }

    public String host() {
        return "127.0.0.1";
    }

    public int port() {
        return port;
    }

    public String password() {
        return password;
    }

    public ClientSettings settings() {
        return ClientSettings.of(host(), port, UNIT, USER, password).withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(600));
    }

    /** The CSV the throttle writes (see the store's docs), or null when the store runs without a profile. */
    public Path traceFile() {
        return trace;
    }

    public Path workDir() {
        return workDir;
    }

    /** One series of the store's Prometheus endpoint (sum over its labels); 0 when absent. */
    double metric(String name) {
        String text;
        try {
            HttpRequest req = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + metricsPort + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).GET().build();
            text = http.send(req, HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            throw new UncheckedIOException("reading the store's metrics: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
        double sum = 0;
        for (String line : text.split("\n")) {
            if (line.startsWith(name) && (line.length() > name.length())
                    && (line.charAt(name.length()) == ' ' || line.charAt(name.length()) == '{')) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        return sum;
    }

    /** Waits until the store has {@code n} backup streams open (every plugin call started), at most {@code timeout}. */
    boolean awaitLeases(int n, Duration timeout) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            if (metric("gpdedup_store_leases_active") >= n) {
                return true;
            }
            Thread.sleep(50);
        }
        return false;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
