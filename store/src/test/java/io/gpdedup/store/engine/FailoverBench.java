package io.gpdedup.store.engine;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.model.Fingerprint;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.testsupport.S3Server;
import io.gpdedup.tooling.StoreLauncher;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A measurement (not a test): the failover of the unit {@link S3StartBench} generated (which must
 * exist: run that first) between two real {@code dist/bin/gpdedup-store} processes on S3Proxy
 * over the bench's scratch directory. Each run starts store A on the unit and waits until a login
 * succeeds, starts store B with {@code --standby} and waits for its standby line, kills A with
 * SIGKILL, then tries a login at B every 0.1 s; once one succeeds it reads the first object's
 * recipe and its first chunk. It prints the time from the kill to B's first login and to that
 * first chunk, the take-over time B logs (lease found lapsed to unit open; the rest before it is
 * the wait for the lease to lapse), the load average, and B's heap (used after a full collection,
 * {@code jcmd}) in standby and with the unit open, over the chunk count.
 *
 * <pre>java -cp &lt;store test classpath&gt; io.gpdedup.store.engine.FailoverBench chunks scratch-dir lease-seconds [runs] [dist-dir]</pre>
 *
 * The stores get GPDEDUP_JAVA_OPTS from this process's environment (e.g. a larger {@code -Xmx}).
 */
public final class FailoverBench {
    private static final String PASSWORD = "failover-bench";
    private static final String UNIT = "u";
    private static final String USER = "bench";
    private static final String FIRST_OBJECT = "bench/obj0";
    private static final Pattern TAKEN_OVER = Pattern.compile("storage unit u: taken over from .* in (\\d+) ms");
    private static final Pattern USED = Pattern.compile("used (\\d+)K");

    private FailoverBench() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: FailoverBench chunks scratch-dir lease-seconds [runs] [dist-dir]");
            System.exit(2);
        }
        int n = Integer.parseInt(args[0]);
        Path dir = Path.of(args[1]).resolve("s3start-" + n).toAbsolutePath();
        int lease = Integer.parseInt(args[2]);
        int runs = args.length > 3 ? Integer.parseInt(args[3]) : 1;
        Path store = Path.of(args.length > 4 ? args[4] : "dist").toAbsolutePath().resolve("bin").resolve("gpdedup-store");
        if (!Files.exists(dir.resolve("generated"))) {
            System.err.println("no generated unit in " + dir + ": run S3StartBench " + n + " " + args[1] + " first");
            System.exit(2);
        }
        try (S3Server server = S3Server.start(dir.resolve("s3"))) {
            for (int i = 0; i < runs; i++) {
                run(server, dir.resolve("failover-run"), store, n, lease);
            }
        }
    }

    private static void run(S3Server server, Path dir, Path store, int n, int lease) throws Exception {
        deleteTree(dir);
        String config = "listen-address: 127.0.0.1\ndata-dir: data\nstorage:\n  type: s3\n  endpoint: " + server.endpoint() + "\n  region: "
                + S3Server.REGION + "\n  bucket: " + S3StartBench.BUCKET + "\n  prefix: site1/\n  path-style: true\n  lease-seconds: " + lease
                + "\nunits:\n  " + UNIT + ":\n    users:\n      " + USER + ": " + PasswordHash.create(PASSWORD.toCharArray(), 1_000).encoded() + "\n";
        Path homeA = home(dir.resolve("a"), config);
        Path homeB = home(dir.resolve("b"), config);

        long t0 = System.nanoTime();
        StoreLauncher.Started a = start(store, homeA, List.of());
        try (StoreClient c = loginWithin(a.port(), Duration.ofMinutes(10))) {
            c.recipe(FIRST_OBJECT).orElseThrow(() -> new IllegalStateException("store A does not list " + FIRST_OBJECT));
        }
        System.out.printf("A: serves the unit %.1f s after its start%n", (System.nanoTime() - t0) / 1e9);
        StoreLauncher.Started b = null;
        try {
            b = start(store, homeB, List.of("--standby"));
            waitForLine(homeB.resolve("store.err"), "storage unit u: standby: held by", Duration.ofMinutes(2));
            long standbyHeap = usedHeapAfterGc(b.process().pid());

            double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
            a.process().destroyForcibly(); // SIGKILL: the lease is left to lapse
            long killed = System.nanoTime();
            a.process().waitFor();
            int tries = 0;
            StoreClient served = null;
            while (served == null) {
                try {
                    tries++;
                    served = StoreClient.connect(settings(b.port()));
                } catch (StoreServerException e) {
                    if (e.code() != ErrorCode.NOT_SERVED || System.nanoTime() - killed > TimeUnit.MINUTES.toNanos(10)) {
                        throw e;
                    }
                    Thread.sleep(100);
                }
            }
            long loggedIn;
            long firstChunk;
            try (StoreClient c = served) {
                loggedIn = System.nanoTime();
                Recipe r = c.recipe(FIRST_OBJECT).orElseThrow(() -> new IllegalStateException("store B does not list " + FIRST_OBJECT));
                c.chunks(new Fingerprint[] {r.chunks().get(0).fingerprint()}).join();
                firstChunk = System.nanoTime();
            }
            String log = Files.readString(homeB.resolve("store.err"));
            Matcher m = TAKEN_OVER.matcher(log);
            String takeOver = m.find() ? m.group(1) + " ms" : "(no take-over line)";
            long openHeap = usedHeapAfterGc(b.process().pid());
            System.out.printf("failover, %,d chunks, lease-seconds %d: kill -9 of A -> first login at B %.1f s (%d tries), -> first chunk %.1f s;"
                    + " B's take-over (lease found lapsed -> unit open) %s; load average %.2f at the kill, %.2f after%n", n, lease,
                    (loggedIn - killed) / 1e9, tries, (firstChunk - killed) / 1e9, takeOver, load,
                    ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
            // B's own account of the take-over: the lease taken, then the catalog and the index loaded.
            log.lines().dropWhile(l -> !l.contains("storage unit u: standby: held by")).filter(l -> l.contains("unit u: ") && !l.contains("login"))
                    .forEach(l -> System.out.println("  B: " + l.replaceFirst("^\\S+ \\S+ \\S+ \\S+: ", "")));
            System.out.printf("B's heap used after a full GC: %,d bytes in standby, %,d with the unit open: %.1f bytes per chunk%n", standbyHeap,
                    openHeap, (double) (openHeap - standbyHeap) / n);
        } finally {
            a.process().destroyForcibly().waitFor();
            if (b != null) {
                b.process().destroy();
                if (!b.process().waitFor(60, TimeUnit.SECONDS)) {
                    b.process().destroyForcibly().waitFor();
                }
            }
        }
    }

    private static Path home(Path home, String config) throws IOException {
        Files.createDirectories(home.resolve(".gpdedup"));
        Files.writeString(home.resolve(".gpdedup").resolve("store.yaml"), config);
        return home;
    }

    private static StoreLauncher.Started start(Path store, Path home, List<String> extra) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of(store.toString(), "serve", "--port", "0", "--metrics-port", "-1"));
        command.addAll(extra);
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("HOME", home.toString());
        pb.environment().put("AWS_ACCESS_KEY_ID", S3Server.IDENTITY);
        pb.environment().put("AWS_SECRET_ACCESS_KEY", S3Server.CREDENTIAL);
        pb.redirectError(ProcessBuilder.Redirect.appendTo(home.resolve("store.err").toFile()));
        return StoreLauncher.start(pb, home.resolve("port"), Duration.ofMinutes(10), home.resolve("store.err"));
    }

    private static ClientSettings settings(int port) {
        return ClientSettings.of("127.0.0.1", port, UNIT, USER, PASSWORD).withTimeouts(Duration.ofSeconds(10), Duration.ofSeconds(120));
    }

    private static StoreClient loginWithin(int port, Duration wait) throws InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            try {
                return StoreClient.connect(settings(port));
            } catch (RuntimeException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(100);
            }
        }
    }

    private static void waitForLine(Path log, String text, Duration wait) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + wait.toNanos();
        while (!Files.readString(log, StandardCharsets.UTF_8).contains(text)) {
            if (System.nanoTime() > deadline) {
                throw new IOException("no line with '" + text + "' in " + log + " within " + wait.toSeconds() + " s");
            }
            Thread.sleep(100);
        }
    }

    /** The store's used heap after two full collections, as {@code jcmd GC.heap_info} reports it (the sum of its generations' "used"). */
    private static long usedHeapAfterGc(long pid) throws IOException, InterruptedException {
        jcmd(pid, "GC.run");
        jcmd(pid, "GC.run");
        String info = jcmd(pid, "GC.heap_info");
        long used = 0;
        for (String line : info.lines().toList()) {
            // G1's one "heap" line, or the serial collector's young and tenured "generation" lines; metaspace lines are not heap
            if (line.contains(" heap ") || line.contains("generation")) {
                Matcher m = USED.matcher(line);
                if (m.find()) {
                    used += Long.parseLong(m.group(1)) * 1024;
                }
            }
        }
        if (used == 0) {
            throw new IOException("no heap figures in jcmd GC.heap_info: " + info);
        }
        return used;
    }

    private static String jcmd(long pid, String command) throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        Process p = new ProcessBuilder(jcmd.toString(), String.valueOf(pid), command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("jcmd " + pid + " " + command + " failed: " + out);
        }
        return out;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(Comparator.reverseOrder())::iterator) {
                Files.delete(p);
            }
        }
    }
}
