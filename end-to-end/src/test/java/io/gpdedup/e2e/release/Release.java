package io.gpdedup.e2e.release;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.tooling.StoreLauncher;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * What the release tests share: the artifacts the distribution module's release profile wrote
 * into {@code distribution/target/release}, processes run with the environment gpbackup gives a
 * plugin (no JAVA_HOME, no GPDEDUP_JAVA, {@code PATH=/usr/bin:/bin}), and what {@code /proc} says
 * a process runs.
 */
final class Release {
    static final String MINIMAL_PATH = "/usr/bin:/bin";

    private Release() {
    }

    static Path repository() {
        return Dist.directory().getParent();
    }

    /** The one artifact of the release matching {@code glob}; skips the test when the release was not built. */
    static Path artifact(String glob) throws IOException {
        Path dir = repository().resolve("distribution/target/release");
        List<Path> found = List.of();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                var matcher = dir.getFileSystem().getPathMatcher("glob:" + glob);
                found = files.filter(f -> matcher.matches(f.getFileName())).toList();
            }
        }
        assumeTrue(!found.isEmpty(), "no " + glob + " in " + dir + ": the release is built by the distribution module's release profile"
                + " (mvn package -Prelease; scripts/test turns it on)");
        assertEquals(1, found.size(), "more than one " + glob + ": " + found);
        return found.get(0);
    }

    /** The project version, from the product tarball's name gpdedup-VERSION-linux-x86_64.tar.gz. */
    static String version(Path productTarball) {
        String name = productTarball.getFileName().toString();
        return name.substring("gpdedup-".length(), name.length() - "-linux-x86_64.tar.gz".length());
    }

    /** Unpacks {@code tarball} into {@code into}, as root would (modes kept). */
    static void unpack(Path tarball, Path into) throws IOException, InterruptedException {
        Files.createDirectories(into);
        Result r = run(List.of("tar", "-xzf", tarball.toString(), "-C", into.toString()), Map.of(), null);
        assertEquals(0, r.exit(), r::toString);
    }

    record Result(int exit, String out, String err) {
    }

    /** Runs {@code command} with only {@code PATH=/usr/bin:/bin} and {@code env}; {@code stdin} null = none. */
    static Result run(List<String> command, Map<String, String> env, byte[] stdin) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().clear();
        pb.environment().put("PATH", MINIMAL_PATH);
        pb.environment().putAll(env);
        Process p = pb.start();
        try (OutputStream in = p.getOutputStream()) {
            if (stdin != null) {
                in.write(stdin);
            }
        }
        var err = new java.io.ByteArrayOutputStream();
        Thread drain = daemon(() -> {
            try {
                p.getErrorStream().transferTo(err);
            } catch (IOException ignored) {
                // the process is gone
            }
        });
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "hung: " + command);
        drain.join();
        return new Result(p.exitValue(), new String(out, StandardCharsets.ISO_8859_1), err.toString(StandardCharsets.UTF_8));
    }

    /** A store process started by {@link #startStore}, and the port it listens on. */
    record Store(Process process, int port) implements AutoCloseable {
        @Override
        public void close() throws InterruptedException {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        }
    }

    /**
     * Starts {@code command} (a store's serve) with only {@code env} besides the minimal PATH and waits
     * until it listens ({@link StoreLauncher}: it writes its port to {@code portFile}, which the store's
     * user must be able to write).
     */
    static Store startStore(List<String> command, Map<String, String> env, Path stderr, Path portFile)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(stderr.toFile());
        pb.environment().clear();
        pb.environment().put("PATH", MINIMAL_PATH);
        pb.environment().putAll(env);
        StoreLauncher.Started started = StoreLauncher.start(pb, portFile, Duration.ofSeconds(120), stderr);
        started.process().getOutputStream().close();
        return new Store(started.process(), started.port());
    }

    /** The executable process {@code pid} runs, as {@code /proc/PID/exe} names it. */
    static Path executableOf(long pid) throws IOException {
        return Files.readSymbolicLink(Path.of("/proc/" + pid + "/exe"));
    }

    /** Whether process {@code pid} maps {@code file} (an AOT cache it loaded). */
    static boolean maps(long pid, Path file) throws IOException {
        return Files.readString(Path.of("/proc/" + pid + "/maps")).contains(" " + file.toRealPath());
    }

    /** The dedup plugin's config for a store on loopback at {@code port}. */
    static Path pluginConfig(Path dir, Path executable, int port, String unit, String user, String password) throws IOException {
        return Files.writeString(dir.resolve("dedup.yaml"), "executablepath: " + executable + "\noptions:\n  hostname: 127.0.0.1\n  port: \"" + port
                + "\"\n  username: " + user + "\n  password: " + password + "\n  storage_unit: " + unit + "\n  directory: release\n  log_directory: "
                + dir.resolve("plugin-logs") + "\n");
    }

    /** Backs up 3 MiB through {@code plugin} and restores it: the same bytes must come back. */
    static void backUpAndRestore(Path plugin, Path config, Map<String, String> env) throws IOException, InterruptedException {
        byte[] data = SeededBytes.array(41, 3 << 20);
        String key = "/data/gpseg0/backups/20261128/20261128120000/gpbackup_0_20261128120000_16384";
        Result backup = run(List.of(plugin.toString(), "backup_data", config.toString(), key), env, data);
        assertEquals(0, backup.exit(), backup::toString);
        Result restore = run(List.of(plugin.toString(), "restore_data", config.toString(), key), env, null);
        assertEquals(0, restore.exit(), restore.err());
        assertArrayEquals(data, restore.out().getBytes(StandardCharsets.ISO_8859_1), "restore_data returned other bytes");
    }

    private static Thread daemon(Runnable r) {
        Thread t = new Thread(r, "release-test-drain");
        t.setDaemon(true);
        t.start();
        return t;
    }

    static Optional<Path> onPath(String name) {
        for (String d : System.getenv().getOrDefault("PATH", MINIMAL_PATH).split(File.pathSeparator)) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }
}
