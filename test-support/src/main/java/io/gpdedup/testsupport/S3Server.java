package io.gpdedup.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real S3 server for tests: S3Proxy with its filesystem backend, run as a separate process from
 * the jar set the build copies into {@code test-support/target/s3proxy/lib} (it pins Netty 4.1,
 * which must not meet ours on one classpath), listening on 127.0.0.1 only.
 *
 * <p>The process is started through {@code sh}, which waits on its standard input and stops the
 * server when that closes: when this JVM ends, however it ends, the server goes with it.
 */
public final class S3Server implements AutoCloseable {
    public static final String IDENTITY = "gpdedup-test";
    public static final String CREDENTIAL = "gpdedup-test-secret";
    public static final String REGION = "us-east-1";
    private static final AtomicInteger BUCKETS = new AtomicInteger();
    private static S3Server shared;

    private final Process process;
    private final Path baseDir;
    private final int port;

    private S3Server(Process process, Path baseDir, int port) {
        this.process = process;
        this.baseDir = baseDir;
        this.port = port;
    }

    /** One server for the whole test JVM, started on first use, its data under the system temp dir. */
    public static synchronized S3Server shared() {
        if (shared == null || !shared.process.isAlive()) {
            try {
                Path dir = Files.createTempDirectory("gpdedup-s3server");
                shared = start(dir);
                S3Server s = shared;
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    s.close();
                    deleteTree(dir);
                }, "s3server-stop"));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the S3 server", e);
            }
        }
        return shared;
    }

    /** Starts a server keeping its buckets under {@code dir}; waits until it accepts connections. */
    public static S3Server start(Path dir) throws IOException, InterruptedException {
        IOException last = null;
        for (int attempt = 0; attempt < 3; attempt++) {
            int port = freePort();
            try {
                return startOn(dir, port);
            } catch (IOException e) {
                last = e; // most likely the port was taken between the probe and the start
            }
        }
        throw last;
    }

    private static S3Server startOn(Path dir, int port) throws IOException, InterruptedException {
        Path data = Files.createDirectories(dir.resolve("buckets"));
        Path conf = dir.resolve("s3proxy.conf");
        Files.writeString(conf, String.join("\n",
                "s3proxy.endpoint=http://127.0.0.1:" + port,
                "s3proxy.authorization=aws-v2-or-v4",
                "s3proxy.identity=" + IDENTITY,
                "s3proxy.credential=" + CREDENTIAL,
                "jclouds.provider=filesystem",
                "jclouds.filesystem.basedir=" + data,
                ""));
        Path logback = dir.resolve("logback.xml");
        Files.writeString(logback, "<configuration><appender name=\"E\" class=\"ch.qos.logback.core.ConsoleAppender\">"
                + "<target>System.err</target><encoder><pattern>%d{HH:mm:ss.SSS} %-5level %logger{20} - %msg%n</pattern></encoder>"
                + "</appender><root level=\"WARN\"><appender-ref ref=\"E\"/></root></configuration>\n");
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command = new ArrayList<>(List.of("sh", "-c",
                "\"$@\" </dev/null & child=$!; cat >/dev/null; kill $child 2>/dev/null; wait $child", "s3server",
                java, "-Xmx512m", "-XX:+UseSerialGC", "-Dlogback.configurationFile=" + logback,
                "-cp", jarDirectory() + "/*", "org.gaul.s3proxy.Main", "--properties", conf.toString()));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve("s3server.log").toFile()));
        Process p = pb.start();
        S3Server server = new S3Server(p, data, port);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IOException("the S3 server exited at start: " + tail(dir.resolve("s3server.log")));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return server;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        server.close();
        throw new IOException("the S3 server did not listen on 127.0.0.1:" + port + " within 120 s: " + tail(dir.resolve("s3server.log")));
    }

    /** Where the build copied the server's jars. */
    public static Path jarDirectory() throws IOException {
        Properties p = new Properties();
        try (InputStream in = S3Server.class.getResourceAsStream("s3proxy.properties")) {
            if (in == null) {
                throw new IOException("s3proxy.properties is missing from test-support: build it with Maven");
            }
            p.load(in);
        }
        Path lib = Path.of(p.getProperty("lib"));
        if (!Files.isDirectory(lib)) {
            throw new IOException("no S3 server jars in " + lib + ": build test-support with Maven first");
        }
        return lib;
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public int port() {
        return port;
    }

    /** A new, empty bucket (the filesystem backend keeps each bucket as a directory). */
    public String newBucket(String hint) {
        String name = (hint.toLowerCase().replaceAll("[^a-z0-9-]", "-") + "-" + ProcessHandle.current().pid() + "-"
                + BUCKETS.incrementAndGet());
        if (name.length() > 63) {
            name = name.substring(name.length() - 63).replaceAll("^-+", "b");
        }
        try {
            Files.createDirectories(baseDir.resolve(name));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return name;
    }

    /** The directory holding a bucket's objects (for tests that look at or damage them). */
    public Path bucketDirectory(String bucket) {
        return baseDir.resolve(bucket);
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

    private static void deleteTree(Path dir) {
        try (var walk = Files.walk(dir)) {
            walk.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // A temp directory: left for the system to clean.
        }
    }
}
