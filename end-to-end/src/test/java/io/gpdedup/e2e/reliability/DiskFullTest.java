package io.gpdedup.e2e.reliability;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpdedup.e2e.data.SeededBytes;
import io.gpdedup.e2e.fixture.DedupFixture;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.CallResult;
import io.gpdedup.e2e.shell.PluginShell;
import io.gpdedup.testsupport.Tmpfs;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A store whose data directory is on a file system that really fills: a 128 MiB tmpfs mounted
 * for the test (needs root; skipped otherwise), {@code disk-reserve-bytes} 40 MiB. Backups of
 * 4,000,000 random bytes through {@code dist/bin/gpbackup_dedup_plugin} until one fails: it must
 * fail cleanly ("store disk full", non-zero, nothing on stdout, nothing of it restorable). Then
 * {@code delete_backup} of the oldest backups and {@code gpdedup-store gc} succeed and free space,
 * a new backup succeeds, every acknowledged backup that was not deleted restores byte for byte,
 * and {@code gpdedup-store verify} finds nothing wrong.
 */
@Timeout(600)
class DiskFullTest {
    private static final long FS_BYTES = 128L << 20;
    private static final long RESERVE = 40L << 20;
    private static final int BACKUP_BYTES = 4_000_000;
    private static final int MAX_BACKUPS = 40;
    /** The oldest backups to delete: more than half of the first 64 MiB container, so gc rewrites it. */
    private static final int DELETED = 12;
    private static final String PASSWORD = "disk-full-password";

    @TempDir
    Path dir;

    @Test
    void aFullDiskFailsBackupsCleanlyAndDeleteAndGcMakeRoom() throws Exception {
        Optional<Tmpfs> mounted = Tmpfs.mount(Files.createDirectories(dir.resolve("fs")), FS_BYTES);
        assumeTrue(mounted.isPresent(), "needs root to mount a tmpfs (mount -t tmpfs): skipped");
        Path fs = mounted.get().path();
        Path agentDir = dir.resolve("agent");
        try (Tmpfs unmount = mounted.get()) {
            Path home = dir.resolve("store-home");
            StoreProcess.writeConfig(home, "data-dir: " + fs.resolve("data") + "\ndisk-reserve-bytes: " + RESERVE + "\n", PASSWORD, 1_000);
            Path passwordFile = Files.writeString(dir.resolve("password"), PASSWORD + "\n");
            try (StoreProcess store = StoreProcess.start(home)) {
                PluginShell plugin = new PluginShell(Dist.executable("gpbackup_dedup_plugin"), Files.createDirectories(dir.resolve("cwd")),
                        Files.createDirectories(dir.resolve("home")), Map.of("GPDEDUP_AGENT_DIR", agentDir.toString()));
                Path cfg = DedupFixture.writeConfig(dir.resolve("plugin.yaml"), store.port(), PASSWORD, dir.resolve("logs"), "");
                Map<Integer, byte[]> acknowledged = new LinkedHashMap<>();
                CallResult full = null;
                int n = 0;
                while (full == null && n < MAX_BACKUPS) {
                    byte[] data = SeededBytes.array(1000 + n, BACKUP_BYTES);
                    CallResult r = plugin.run(new ByteArrayInputStream(data), "backup_data", cfg.toString(), key(n));
                    if (r.exitCode() == 0) {
                        acknowledged.put(n, data);
                    } else {
                        full = r;
                    }
                    n++;
                }
                assertNotNull(full, MAX_BACKUPS + " backups fit on a " + FS_BYTES + "-byte file system");
                int failed = n - 1;
                assertTrue(full.stderr().contains("store disk full"), full.toString());
                assertEquals(0, full.stdoutBytes(), "stdout of the failed backup");
                plugin.run("restore_data", cfg.toString(), key(failed)).assertFailed();
                long freeWhenFull = fs.toFile().getUsableSpace();
                assertTrue(acknowledged.size() > DELETED, acknowledged.size() + " backups acknowledged");

                for (int i = 0; i < DELETED; i++) {
                    plugin.run("delete_backup", cfg.toString(), timestamp(i)).assertSucceeded();
                    acknowledged.remove(i);
                }
                Admin gc = admin(store.port(), passwordFile, "gc");
                assertEquals(0, gc.exit(), gc.output());
                long freeAfterGc = fs.toFile().getUsableSpace();
                assertTrue(freeAfterGc > freeWhenFull + (16L << 20), "free bytes: " + freeWhenFull + " when full, " + freeAfterGc + " after gc");

                byte[] fresh = SeededBytes.array(5000, BACKUP_BYTES);
                plugin.run(new ByteArrayInputStream(fresh), "backup_data", cfg.toString(), key(failed)).assertSucceeded();
                acknowledged.put(failed, fresh);
                for (var e : acknowledged.entrySet()) {
                    CallResult restored = plugin.run("restore_data", cfg.toString(), key(e.getKey())).assertSucceeded();
                    assertArrayEquals(e.getValue(), restored.stdout(), "backup " + e.getKey());
                }
                Admin verify = admin(store.port(), passwordFile, "verify");
                assertEquals(0, verify.exit(), verify.output());
                System.out.printf("tmpfs of %d MiB, reserve %d MiB: %d backups of %d bytes acknowledged, backup %d failed with \"%s\","
                        + " %d bytes free; %d deleted, gc: %s; %d bytes free after gc; a new backup and %d restores succeeded; verify OK%n",
                        FS_BYTES >> 20, RESERVE >> 20, failed, BACKUP_BYTES, failed, lastLine(full.stderr()), freeWhenFull, DELETED,
                        gc.output().replace('\n', ' ').replaceAll(" +", " ").trim(), freeAfterGc, acknowledged.size());
            }
        } finally {
            HostAgents.kill(agentDir);
        }
    }

    private record Admin(int exit, String output) {
    }

    private Admin admin(int port, Path passwordFile, String command) throws IOException, InterruptedException {
        Path out = dir.resolve(command + ".out");
        Process p = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), command, "--port", String.valueOf(port), "--unit", StoreProcess.UNIT,
                "--user", StoreProcess.USER, "--password-file", passwordFile.toString())
                .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "gpdedup-store " + command + " did not finish");
        return new Admin(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    private static String timestamp(int n) {
        return String.format("202611231500%02d", n);
    }

    private static String key(int n) {
        String ts = timestamp(n);
        return "/data/gpseg0/backups/" + ts.substring(0, 8) + "/" + ts + "/gpbackup_0_" + ts + "_1";
    }

    private static String lastLine(String text) {
        List<String> lines = new ArrayList<>(text.strip().lines().toList());
        return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
    }
}
