package io.gpdedup.e2e.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpdedup.client.ClientSettings;
import io.gpdedup.client.StoreClient;
import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.shell.IgnoredSignals;
import io.gpdedup.store.auth.PasswordHash;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store as a service: the shipped systemd unit passes {@code systemd-analyze verify}; a store
 * with {@code log-file} logs logins, deletes and config reloads there and rotates it; SIGHUP takes
 * new users; admin commands find the server through {@code --config}, and name a password file
 * they cannot read.
 */
@Timeout(180)
class ServiceTest {
    private static final String PASSWORD = "service-password";

    @TempDir
    Path dir;

    @Test
    void theUnitFilePassesSystemdAnalyzeVerify() throws Exception {
        Path analyze = onPath("systemd-analyze");
        assumeTrue(analyze != null, "systemd-analyze is not installed (apt package systemd): the unit file is not checked");
        Path shipped = Dist.directory().resolve("systemd").resolve("gpdedup-store.service");
        String unit = Files.readString(shipped);
        assertTrue(unit.contains("ExecStart=/opt/gpdedup/bin/gpdedup-store serve --config /etc/gpdedup/store.yaml"), unit);
        // verify checks that the executable exists: point it at this build instead of /opt/gpdedup.
        Path copy = Files.writeString(dir.resolve("gpdedup-store.service"), unit.replace("/opt/gpdedup", Dist.directory().toString()));
        Process p = new ProcessBuilder(analyze.toString(), "verify", copy.toString()).redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "systemd-analyze verify did not finish");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        // Unknown keys and bad values are warnings with exit 0: the unit is clean only if nothing is said about it.
        assertFalse(out.contains(copy.getFileName().toString()), out);
    }

    @Test
    void aStoreStartedWithSighupIgnoredSaysAReloadNeedsARestart() throws Exception {
        Path home = dir.resolve("nohup-home");
        StoreProcess.writeConfig(home, "data-dir: data\n", PASSWORD, 1_000);
        try (StoreProcess store = StoreProcess.startIgnoringHangUp(home)) {
            String stderr = Files.readString(home.resolve("store.err"));
            assertTrue(stderr.contains("SIGHUP is ignored by this process (started under nohup?): kill -HUP will not reload the config"),
                    stderr);
        }
    }

    @Test
    void aServiceLogsToARotatedFileTakesNewUsersOnSighupAndAdminCommandsReadItsConfig() throws Exception {
        // A store started from a process tree that ignores SIGHUP (this one under nohup) cannot take it: the test above.
        assumeFalse(IgnoredSignals.ignores(ProcessHandle.current().pid(), IgnoredSignals.SIGHUP), "SIGHUP is ignored in this process tree (nohup?), so the store would ignore it too");
        Path home = dir.resolve("store-home");
        StoreProcess.writeConfig(home, "data-dir: data\nlog-file: logs/store.log\nlog-file-max-bytes: 4096\nlog-file-count: 3\n", PASSWORD, 1_000);
        Path config = home.resolve(".gpdedup").resolve("store.yaml");
        Path log = home.resolve(".gpdedup").resolve("logs").resolve("store.log");
        Path passwordFile = Files.writeString(dir.resolve("password"), PASSWORD + "\n");
        Path elsewhere = Files.createDirectories(dir.resolve("admin-home"));
        try (StoreProcess store = StoreProcess.start(home)) {
            // Another HOME: the admin command can only find the server (port file of the config's data-dir) through --config.
            StoreAdmin admin = new StoreAdmin(dir, elsewhere, List.of("--config", config.toString(), "--unit", StoreProcess.UNIT,
                    "--user", StoreProcess.USER, "--password-file", passwordFile.toString()));
            assertEquals(0, admin.run("stat").exit());
            // Enough logins to fill the 4096-byte file more than once, through the client library.
            for (int i = 0; i < 150; i++) {
                try (StoreClient c = StoreClient.connect(ClientSettings.of("127.0.0.1", store.port(), StoreProcess.UNIT, StoreProcess.USER, PASSWORD))) {
                    c.ping();
                }
            }
            String logged = logText(log);
            assertTrue(logged.contains("login: user '" + StoreProcess.USER + "' unit '" + StoreProcess.UNIT + "' from 127.0.0.1"), logged);
            assertTrue(Files.exists(log.resolveSibling("store.log.2")), "the log was not rotated at 4096 bytes");
            assertFalse(Files.exists(log.resolveSibling("store.log.3")), "more than log-file-count files");
            assertTrue(Files.size(log.resolveSibling("store.log.1")) <= 4096, "a rotated file is above log-file-max-bytes");

            // A new user, then SIGHUP: the running store lets it in.
            String extra = "      operator: " + PasswordHash.create("operator-password".toCharArray(), 1_000).encoded() + "\n";
            Files.writeString(config, Files.readString(config) + extra);
            Path operatorPassword = Files.writeString(dir.resolve("operator-password"), "operator-password\n");
            StoreAdmin operator = new StoreAdmin(dir, elsewhere, List.of("--config", config.toString(), "--unit", StoreProcess.UNIT,
                    "--user", "operator", "--password-file", operatorPassword.toString()));
            assertNotEquals(0, operator.run("stat").exit(), "the new user got in before the reload");
            hangUp(store);
            awaitLog(log, "config reloaded from");
            StoreAdmin.Result in = operator.run("stat");
            assertEquals(0, in.exit(), in::toString);

            // A broken config is refused on reload and the users stay as they were.
            Files.writeString(config, Files.readString(config) + "bogus-key: 1\n");
            hangUp(store);
            awaitLog(log, "config reload from " + config + " failed");
            StoreAdmin operatorByPort = new StoreAdmin(dir, elsewhere, List.of("--port", String.valueOf(store.port()), "--unit", StoreProcess.UNIT,
                    "--user", "operator", "--password-file", operatorPassword.toString()));
            StoreAdmin.Result still = operatorByPort.run("stat");
            assertEquals(0, still.exit(), still::toString);
            StoreAdmin.Result broken = operator.run("stat");
            assertEquals(2, broken.exit(), broken::toString);
            assertTrue(broken.stderr().contains("unknown key 'bogus-key'"), broken::toString);
            Files.writeString(config, Files.readString(config).replace("bogus-key: 1\n", ""));

            StoreAdmin.Result missing = new StoreAdmin(dir, elsewhere, List.of("--config", config.toString(), "--password-file",
                    dir.resolve("no-such-file").toString())).run("stat");
            assertNotEquals(0, missing.exit());
            assertEquals("gpdedup-store: password file " + dir.resolve("no-such-file") + " does not exist", missing.stderr().strip());
        }
        StoreAdmin.Result stopped = new StoreAdmin(dir, elsewhere, List.of("--config", config.toString(), "--unit", StoreProcess.UNIT,
                "--user", StoreProcess.USER, "--password-file", passwordFile.toString())).run("stat");
        assertNotEquals(0, stopped.exit());
        assertTrue(stopped.stderr().contains("(address from config " + config), stopped::toString);
        assertFalse(stopped.stderr().contains("Exception"), stopped::toString);
    }

    private static void hangUp(StoreProcess store) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-HUP", String.valueOf(store.pid())).start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -HUP failed");
    }

    /** Waits for {@code text} in the log's files, for a minute at most. */
    private static void awaitLog(Path log, String text) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!logText(log).contains(text)) {
            if (System.nanoTime() > deadline) {
                String all = logText(log);
                Path err = log.getParent().getParent().getParent().resolve("store.err");
                String stderr = Files.exists(err) ? Files.readString(err) : "(no store.err)";
                fail("no '" + text + "' in the log within a minute; its last lines:\n" + all.substring(Math.max(0, all.length() - 3000))
                        + "\nstore.err:\n" + stderr.substring(Math.max(0, stderr.length() - 3000)));
            }
            Thread.sleep(100);
        }
    }

    private static String logText(Path log) throws IOException {
        StringBuilder b = new StringBuilder();
        try (Stream<Path> files = Files.list(log.getParent())) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith("store.log")).toList()) {
                b.append(Files.readString(f));
            }
        }
        return b.toString();
    }

    private static Path onPath(String name) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(File.pathSeparator)) {
            Path p = Path.of(d, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }
}
