package io.gpdedup.testsupport;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real S3 server with Object Lock for tests: moto's server (PyPI {@code moto[server]}), run as
 * a separate process on 127.0.0.1, stopped with this JVM however it ends (started through {@code
 * sh}, which stops it when its standard input closes), as {@link S3Server} runs S3Proxy, whose
 * filesystem backend has no Object Lock.
 *
 * <p>moto is installed by this class, once per machine: a Python virtual environment under
 * {@code ~/.cache/gpdedup/moto-VERSION} (or {@code $GPDEDUP_CACHE}), made with {@code python3 -m
 * venv} and {@code pip install}, reused afterwards. Concurrent installers wait on one file lock.
 * Without python3 and its venv module the tests that need it fail, saying what to install.
 * {@code scripts/test} starts the install at its beginning ({@code java MotoServer.java install}),
 * so that it runs while Maven builds.
 */
public final class MotoServer implements AutoCloseable {
    public static final String VERSION = "5.2.5";
    /** moto accepts any credentials; the store signs with these. */
    public static final String IDENTITY = "gpdedup-test";
    public static final String CREDENTIAL = "gpdedup-test-secret";
    private static final AtomicInteger BUCKETS = new AtomicInteger();
    private static MotoServer shared;

    private final Process process;
    private final int port;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    private MotoServer(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** {@code java MotoServer.java install}: installs moto if it is not yet (what scripts/test runs ahead). */
    public static void main(String[] args) throws IOException, InterruptedException {
        if (args.length != 1 || !args[0].equals("install")) {
            System.err.println("usage: MotoServer install");
            System.exit(2);
        }
        try {
            System.out.println("moto " + VERSION + " in " + install());
        } catch (IOException e) {
            System.err.println(e.getMessage());
            System.exit(1);
        }
    }

    /** One server for the whole test JVM, started on first use (installing moto first if needed). */
    public static synchronized MotoServer shared() {
        if (shared == null || !shared.process.isAlive()) {
            try {
                Path dir = Files.createTempDirectory("gpdedup-moto");
                shared = start(dir);
                MotoServer s = shared;
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    s.close();
                    try {
                        deleteTree(dir);
                    } catch (IOException e) {
                        // A temp directory: left for the system to clean.
                    }
                }, "moto-stop"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting moto's server", e);
            }
        }
        return shared;
    }

    /** Starts a server (its log in {@code dir}) on a free port; waits until it accepts connections. */
    public static MotoServer start(Path dir) throws IOException, InterruptedException {
        Path venv = install();
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            try {
                return startOn(venv, dir, freePort());
            } catch (IOException e) {
                last = e; // most likely the port was taken between the probe and the start
            }
        }
        throw last;
    }

    private static MotoServer startOn(Path venv, Path dir, int port) throws IOException, InterruptedException {
        Path log = dir.resolve("moto-" + port + ".log");
        // The interpreter of the environment, not its moto_server script: the script's first line
        // names the directory the environment was made in, which the install renamed.
        List<String> command = new ArrayList<>(List.of("sh", "-c",
                "\"$@\" </dev/null & child=$!; cat >/dev/null; kill $child 2>/dev/null; wait $child", "moto",
                venv.resolve("bin/python").toString(), "-m", "moto.server", "-H", "127.0.0.1", "-p", String.valueOf(port)));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Process p = pb.start();
        MotoServer server = new MotoServer(p, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IOException("moto's server exited at start: " + tail(log));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return server;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        server.close();
        throw new IOException("moto's server did not listen on 127.0.0.1:" + port + " within 60 s: " + tail(log));
    }

    /**
     * The virtual environment holding moto, installed now if it is not there yet: into a
     * directory beside it, renamed into place once pip finished, so a cut-short install is never
     * taken for a whole one.
     */
    public static Path install() throws IOException, InterruptedException {
        Path cache = cacheDir();
        Files.createDirectories(cache);
        Path venv = cache.resolve("moto-" + VERSION);
        try (FileChannel lockFile = FileChannel.open(cache.resolve("moto.lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                FileLock lock = lockFile.lock()) {
            if (Files.isExecutable(venv.resolve("bin/python"))) {
                return venv;
            }
            Path building = cache.resolve("moto-" + VERSION + ".installing");
            deleteTree(building);
            Path log = cache.resolve("moto-install.log");
            run(log, "python3 -m venv", "python3", "-m", "venv", building.toString());
            run(log, "pip install moto[server]==" + VERSION, building.resolve("bin/python").toString(), "-m", "pip", "install",
                    "--disable-pip-version-check", "--no-input", "-q", "moto[server]==" + VERSION);
            Files.move(building, venv);
            return venv;
        }
    }

    private static void run(Path log, String what, String... command) throws IOException, InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        } catch (IOException e) {
            throw new IOException("the Object Lock tests need moto's S3 server, installed with " + what + ", and " + command[0]
                    + " cannot be run (" + e.getMessage() + "): install python3 and python3-venv (apt-get install python3-venv)", e);
        }
        if (!p.waitFor(15, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new IOException(what + " took more than 15 minutes (log: " + log + ")");
        }
        if (p.exitValue() != 0) {
            throw new IOException("the Object Lock tests need moto's S3 server, and " + what + " failed (exit " + p.exitValue()
                    + "): install python3 and python3-venv (apt-get install python3-venv) and let PyPI be reached; log " + log
                    + ": " + tail(log));
        }
    }

    /** {@code $GPDEDUP_CACHE}, else {@code $XDG_CACHE_HOME/gpdedup}, else {@code ~/.cache/gpdedup}. */
    static Path cacheDir() {
        String own = System.getenv("GPDEDUP_CACHE");
        if (own != null && !own.isBlank()) {
            return Path.of(own);
        }
        String xdg = System.getenv("XDG_CACHE_HOME");
        return (xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache")).resolve("gpdedup");
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    /** A new, empty bucket; with {@code objectLock}, created with Object Lock enabled (and so versioning). */
    public String newBucket(String hint, boolean objectLock) {
        String name = hint.toLowerCase().replaceAll("[^a-z0-9-]", "-") + "-" + ProcessHandle.current().pid() + "-" + BUCKETS.incrementAndGet();
        if (name.length() > 63) {
            name = name.substring(name.length() - 63).replaceAll("^-+", "b");
        }
        // moto takes unsigned requests: the bucket is made without an S3 client, which test-support does not carry.
        HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(endpoint() + "/" + name)).PUT(HttpRequest.BodyPublishers.noBody());
        if (objectLock) {
            req.header("x-amz-bucket-object-lock-enabled", "true");
        }
        try {
            HttpResponse<String> r = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException("moto refused to create bucket " + name + ": " + r.statusCode() + " " + r.body());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating bucket " + name, e);
        }
        return name;
    }

    @Override
    public void close() {
        try {
            OutputStream stdin = process.getOutputStream();
            stdin.close();
        } catch (IOException e) {
            // The shell stops the server when its stdin closes, which this tried to do; force it below.
        }
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly().waitFor(20, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static String tail(Path log) {
        try {
            String s = Files.readString(log, StandardCharsets.UTF_8);
            return s.length() > 2000 ? s.substring(s.length() - 2000) : s;
        } catch (IOException e) {
            return "(no log)";
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
