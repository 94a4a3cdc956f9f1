package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import io.gpdedup.e2e.fixture.StoreBackend;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * kill -9 of {@code dist/bin/gpdedup-store} at a random moment during concurrent backups through
 * {@code dist/bin/gpbackup_dedup_plugin} (host agent on), then a restart on the same data and port
 * 1 to 4 s later while the backups go on (they reconnect), for {@code gpdedup.crash.kills} rounds
 * (3 here; scripts/reliability crash runs 20+). Some rounds also kill -9 one plugin launcher or the
 * host agent mid-stream. After each round: every backup the plugin reported successful restores
 * byte for byte, every other backup either is absent (restore fails) or restores complete (its
 * commit was durable but the answer was lost with the store), and {@code gpdedup-store verify}
 * exits 0. Seeded: same seed, same data, kill moments and downtimes. On both storage backends: the
 * data directory, and a bucket on S3Proxy ({@code gpdedup.crash.s3-kills} rounds, 2 here), where the
 * restarted store has an empty cache and only the bucket to go by.
 */
@Timeout(1800)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock(WaitingLane.LOCK)
class CrashRunTest {
    private static final int KILLS = Integer.getInteger("gpdedup.crash.kills", 3);
    private static final int S3_KILLS = Integer.getInteger("gpdedup.crash.s3-kills", 2);
    private static final int BACKUPS = Integer.getInteger("gpdedup.crash.backups", 8);
    private static final int MAX_BACKUP_BYTES = Integer.getInteger("gpdedup.crash.max-bytes", 3 << 20);
    private static final long SEED = Long.getLong("gpdedup.crash.seed", 20261123L);
    /** Shared by all backups, so that they dedup against each other's (possibly orphaned) chunks. */
    private static final byte[] BASE = new byte[16 << 20];

    static {
        new Random(SEED).nextBytes(BASE);
    }

    @TempDir
    Path dir;

    private record Backup(String key, long seed, int length, byte[] sha256) {
    }

    private record Outcome(Backup backup, int exit, String stderr) {
    }

    private record Totals(int rounds, int storeKills, int launcherKills, int agentKills, int runningAtStoreKill, int acknowledged,
            int unacknowledgedAbsent, int unacknowledgedComplete, long bytesVerified) {
    }

    static byte[] content(long seed, int length) {
        Random r = new Random(seed);
        int from = r.nextInt(BASE.length - length);
        byte[] b = Arrays.copyOfRange(BASE, from, from + length);
        for (int i = r.nextInt(1 << 18); i < length; i += 1 + r.nextInt(1 << 18)) {
            b[i] ^= (byte) (1 + r.nextInt(255));
        }
        return b;
    }

    private static byte[] sha(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    @ParameterizedTest
    @EnumSource(StoreBackend.class)
    void acknowledgedBackupsSurviveKillNine(StoreBackend backend) throws Exception {
        Path home = dir.resolve("store-home");
        Path agentDir = dir.resolve("agent");
        Files.createDirectories(home);
        backend.prepare(home);
        // On S3 fewer rounds: each restart there takes its lease back and reads its checkpoints.
        int kills = backend == StoreBackend.S3 ? S3_KILLS : KILLS;
        Random random = new Random(SEED);
        List<Backup> acknowledged = new ArrayList<>();
        int launcherKills = 0;
        int agentKills = 0;
        int absent = 0;
        int completeUnacked = 0;
        long bytesVerified = 0;
        int runningAtStoreKill = 0;
        ExecutorService pool = Executors.newCachedThreadPool();
        Process store = startStore(home, 0);
        int port = port(store);
        Path cfg = config(port);
        try {
            for (int round = 0; round < kills; round++) {
                String ts = String.format("20261123%06d", 100000 + round);
                List<Future<Outcome>> calls = new ArrayList<>();
                List<Process> launchers = new ArrayList<>();
                for (int i = 0; i < BACKUPS; i++) {
                    Backup b = new Backup("/data/gpseg" + (i % 4) + "/backups/20261123/" + ts + "/gpbackup_" + (i % 4) + "_" + ts + "_" + (16384 + i),
                            random.nextLong(), 1 + random.nextInt(MAX_BACKUP_BYTES), null);
                    byte[] data = content(b.seed(), b.length());
                    Backup withSha = new Backup(b.key(), b.seed(), b.length(), sha(data));
                    Process p = plugin(agentDir, "backup_data", cfg.toString(), b.key());
                    launchers.add(p);
                    // Paced like a table COPY, so that most streams are still open when the kills come:
                    // fed as fast as the pipe takes them, they end in a few ms and nothing is interrupted.
                    long spreadMs = 500 + random.nextInt(3500);
                    calls.add(pool.submit(() -> feed(p, data, withSha, spreadMs)));
                }
                // On S3 a commit waits for uploads: the kill window starts later so that some backups finish first.
                int killAfterMs = 200 + random.nextInt(2500) + (backend == StoreBackend.S3 ? 2500 : 0);
                int mode = round % 3; // 0: store only; 1: also one launcher; 2: also the agent
                Thread.sleep(killAfterMs / 2);
                if (mode == 1) {
                    launchers.get(random.nextInt(launchers.size())).destroyForcibly();
                    launcherKills++;
                } else if (mode == 2 && HostAgents.kill(agentDir) > 0) {
                    agentKills++;
                }
                Thread.sleep(killAfterMs - killAfterMs / 2);
                runningAtStoreKill += (int) launchers.stream().filter(Process::isAlive).count();
                store.destroyForcibly(); // SIGKILL
                assertTrue(store.waitFor(60, TimeUnit.SECONDS), "the store did not die of SIGKILL");
                // Down for a few seconds while the backups wait, then back on the same port and data, as
                // it was left (no manual repair).
                Thread.sleep(1000 + new Random(SEED + round).nextInt(3000));
                store = startStore(home, port);
                List<Outcome> outcomes = new ArrayList<>();
                for (Future<Outcome> f : calls) {
                    outcomes.add(f.get(600, TimeUnit.SECONDS));
                }
                for (Outcome o : outcomes) {
                    if (o.exit() == 0) {
                        acknowledged.add(o.backup());
                    } else {
                        RestoreResult r = restore(agentDir, cfg, o.backup().key());
                        if (r.exit() == 0) {
                            assertTrue(Arrays.equals(o.backup().sha256(), r.sha256()) && r.bytes() == o.backup().length(),
                                    "an interrupted backup is visible but not complete: " + o.backup().key());
                            completeUnacked++;
                            bytesVerified += r.bytes();
                        } else {
                            absent++;
                        }
                        System.out.println("round " + round + ": not acknowledged: " + o.backup().key() + ": " + o.stderr().strip());
                    }
                }
                for (Backup b : acknowledged) {
                    RestoreResult r = restore(agentDir, cfg, b.key());
                    assertEquals(0, r.exit(), "acknowledged backup " + b.key() + " does not restore: " + r.stderr());
                    assertTrue(Arrays.equals(b.sha256(), r.sha256()) && r.bytes() == b.length(),
                            "acknowledged backup " + b.key() + " restores different bytes");
                    bytesVerified += r.bytes();
                }
                int verify = adminVerify(home, port);
                assertEquals(0, verify, "gpdedup-store verify after round " + round);
            }
        } finally {
            store.destroy();
            store.waitFor(60, TimeUnit.SECONDS);
            HostAgents.kill(agentDir);
            pool.shutdownNow();
        }
        Totals t = new Totals(kills, kills, launcherKills, agentKills, runningAtStoreKill, acknowledged.size(), absent, completeUnacked,
                bytesVerified);
        System.out.println("crash run (" + backend + "): " + t);
        assertTrue(acknowledged.size() > 0, "no backup finished at all: the kills came too early to test anything");
        assertTrue(runningAtStoreKill > 0, "every backup finished before its store was killed: the run interrupted nothing");
    }

    /** The store on {@code port} (0: any free one). */
    private Process startStore(Path home, int port) throws IOException, InterruptedException {
        StoreProcess.Started started = StoreProcess.launch(home, Duration.ofSeconds(120), List.of("--port", String.valueOf(port), "--metrics-port", "-1"));
        ports.put(started.process(), started.port());
        return started.process();
    }

    private final java.util.Map<Process, Integer> ports = new java.util.concurrent.ConcurrentHashMap<>();

    private int port(Process store) {
        return ports.get(store);
    }

    private Path config(int port) throws IOException {
        Path cfg = dir.resolve("plugin-" + port + ".yaml");
        Files.writeString(cfg, "executablepath: " + Dist.executable("gpbackup_dedup_plugin") + "\noptions:\n  hostname: 127.0.0.1\n"
                + "  port: \"" + port + "\"\n  username: gpdedup\n  password: gpdedup\n  storage_unit: gpdedup\n  directory: cluster1\n"
                + "  log_directory: " + dir.resolve("logs") + "\n"
                // A call that starts while the store is down waits out its restart (up to 4 s, then the JVM's start).
                + "  connect_timeout_seconds: \"60\"\n");
        return cfg;
    }

    /** The plugin as gpbackup runs it, with the host agent in a directory of this test's own. */
    private Process plugin(Path agentDir, String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Dist.executable("gpbackup_dedup_plugin").toString());
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().clear();
        pb.environment().put("PATH", "/usr/bin:/bin");
        pb.environment().put("HOME", dir.toString());
        pb.environment().put("GPDEDUP_AGENT_DIR", agentDir.toString());
        pb.directory(dir.toFile());
        return pb.start();
    }

    private static Outcome feed(Process p, byte[] data, Backup b, long spreadMs) throws InterruptedException {
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        CompletableFuture.runAsync(() -> drain(p.getInputStream()));
        int pieces = Math.max(1, (data.length + (1 << 16) - 1) >> 16);
        long pauseNanos = spreadMs * 1_000_000L / pieces;
        try (OutputStream in = p.getOutputStream()) {
            for (int off = 0; off < data.length; off += 1 << 16) {
                in.write(data, off, Math.min(1 << 16, data.length - off));
                in.flush();
                java.util.concurrent.locks.LockSupport.parkNanos(pauseNanos);
            }
        } catch (IOException plugInDied) {
            // its exit code tells
        }
        if (!p.waitFor(300, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
        return new Outcome(b, p.waitFor(), err.join());
    }

    private static String drain(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private record RestoreResult(int exit, long bytes, byte[] sha256, String stderr) {
    }

    private RestoreResult restore(Path agentDir, Path cfg, String key) throws Exception {
        Process p = plugin(agentDir, "restore_data", cfg.toString(), key);
        p.getOutputStream().close();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> drain(p.getErrorStream()));
        MessageDigest md = MessageDigest.getInstance("SHA-256");
        long n = 0;
        try (InputStream out = p.getInputStream()) {
            byte[] buf = new byte[1 << 16];
            int k;
            while ((k = out.read(buf)) >= 0) {
                md.update(buf, 0, k);
                n += k;
            }
        }
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "restore hung: " + key);
        return new RestoreResult(p.exitValue(), n, md.digest(), err.join());
    }

    private int adminVerify(Path home, int port) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), "verify", "--port", String.valueOf(port));
        pb.environment().put("HOME", home.toString());
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = drain(p.getInputStream());
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "verify hung");
        if (p.exitValue() != 0) {
            System.out.println("verify said: " + out);
        }
        return p.exitValue();
    }
}
