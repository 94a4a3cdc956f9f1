package io.gpdedup.e2e.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.store.auth.PasswordHash;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The product's packages for the store host: the .deb installed with dpkg (root only, where dpkg
 * is), its unit verified, its store started as the unit starts it and used through the installed
 * plugin, then removed with its data kept; the .rpm's files and scripts read with rpm (where rpm is).
 */
@Timeout(300)
class PackageInstallTest {
    private static final Path PREFIX = Path.of("/opt/gpdedup");
    private static final Path DATA = Path.of("/var/lib/gpdedup");
    private static final Path ETC = Path.of("/etc/gpdedup");
    private static final Path UNIT = Path.of("/usr/lib/systemd/system/gpdedup-store.service");
    private static final String PASSWORD = "package-password";
    private static final String ROOT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    @TempDir
    Path dir;

    @Test
    void theDebInstallsAStoreThatBacksUpAndRestoresAndLeavesItsDataWhenRemoved() throws Exception {
        Path deb = Release.artifact("gpdedup_*_amd64.deb");
        assumeTrue("root".equals(System.getProperty("user.name")), "installing the .deb needs root");
        Path dpkg = Release.onPath("dpkg").orElse(null);
        assumeTrue(dpkg != null, "dpkg is not installed: the .deb is not installed and tested");
        assumeTrue(run("dpkg", "-s", "gpdedup").exit() != 0, "the package gpdedup is installed on this host already");
        for (Path p : List.of(PREFIX, DATA, ETC, UNIT)) {
            assumeTrue(!Files.exists(p, LinkOption.NOFOLLOW_LINKS), p + " exists: another installation of gpdedup is on this host");
        }
        boolean userExisted = run("getent", "passwd", "gpdedup").exit() == 0;
        Path agents = dir.resolve("agents");
        try {
            Release.Result installed = run("dpkg", "-i", deb.toString());
            assertEquals(0, installed.exit(), installed::toString);
            assertEquals(0, run("getent", "passwd", "gpdedup").exit(), "postinst made no user gpdedup");
            assertEquals("gpdedup", Files.getOwner(DATA).getName());
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(DATA)));
            assertTrue(run("dpkg-query", "-W", "-f=${Conffiles}", "gpdedup").out().contains(ETC.resolve("store.yaml.example").toString()),
                    "store.yaml.example is not a conffile");
            Release.Result version = run(PREFIX.resolve("bin/gpdedup-store").toString(), "--version");
            assertEquals("gpdedup-store version " + Files.readString(PREFIX.resolve("VERSION")).strip(), version.out().strip(), version::toString);

            String unit = Files.readString(UNIT);
            Release.onPath("systemd-analyze").ifPresent(analyze -> verifyUnit(analyze, unit));

            int port = freePort();
            String example = Files.readString(ETC.resolve("store.yaml.example"));
            String config = example.replace("port: 7411", "port: " + port).replace("metrics-port: 7412", "metrics-port: -1")
                    .replace("pbkdf2-sha256$210000$<salt>$<hash>", PasswordHash.create(PASSWORD.toCharArray(), 1_000).encoded());
            assertTrue(config.contains("port: " + port) && !config.contains("<hash>"), "the example's port or hash line changed: " + example);
            Path storeYaml = Files.writeString(ETC.resolve("store.yaml"), config);
            assertEquals(0, run("chown", "root:gpdedup", storeYaml.toString()).exit());
            Files.setPosixFilePermissions(storeYaml, PosixFilePermissions.fromString("rw-r-----"));

            // No systemd as PID 1 here: the unit's ExecStart, as its user, with its environment.
            List<String> command = new ArrayList<>(List.of("setpriv", "--reuid=gpdedup", "--regid=gpdedup", "--init-groups", "--"));
            command.addAll(List.of(line(unit, "ExecStart=").split(" ")));
            Map<String, String> env = new HashMap<>();
            for (String assignment : unit.lines().filter(l -> l.startsWith("Environment=")).map(l -> l.substring("Environment=".length())).toList()) {
                env.put(assignment.substring(0, assignment.indexOf('=')), assignment.substring(assignment.indexOf('=') + 1));
            }
            assertEquals(DATA.toString(), env.get("HOME"));
            // The port file goes where the store's user may write and the data directory's check below does not look.
            Path portDir = Files.createTempDirectory(Path.of("/tmp"), "gpdedup-package-port-");
            assertEquals(0, run("chown", "gpdedup:gpdedup", portDir.toString()).exit());
            try (Release.Store store = Release.startStore(command, env, dir.resolve("store.err"), portDir.resolve("store.port"))) {
                assertEquals(port, store.port());
                long pid = store.process().pid();
                assertEquals(PREFIX.resolve("runtime/bin/java"), Release.executableOf(pid));
                String uid = run("id", "-u", "gpdedup").out().strip();
                assertTrue(Files.readString(Path.of("/proc/" + pid + "/status")).lines()
                        .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals(uid)), "the store does not run as gpdedup");
                Path plugin = PREFIX.resolve("bin/gpbackup_dedup_plugin");
                Path pluginConfig = Release.pluginConfig(dir, plugin, port, "prod", "backup", PASSWORD);
                Release.backUpAndRestore(plugin, pluginConfig, Map.of("HOME", dir.toString(), "GPDEDUP_AGENT_DIR", agents.toString()));
            } finally {
                Files.deleteIfExists(portDir.resolve("store.port"));
                Files.delete(portDir);
            }
            assertTrue(hasFiles(DATA), "the store kept nothing in " + DATA);

            Release.Result removed = run("dpkg", "-r", "gpdedup");
            assertEquals(0, removed.exit(), removed::toString);
            assertFalse(Files.exists(PREFIX.resolve("bin/gpdedup-store")), "dpkg -r left the executables");
            assertFalse(Files.exists(UNIT), "dpkg -r left the unit");
            assertTrue(hasFiles(DATA), "dpkg -r removed the backups in " + DATA);
        } finally {
            HostAgents.kill(agents);
            run("dpkg", "--purge", "gpdedup");
            run("rm", "-rf", DATA.toString(), ETC.toString(), PREFIX.toString());
            if (!userExisted) {
                run("userdel", "gpdedup");
            }
        }
    }

    @Test
    void theRpmHoldsTheTreeTheUnitTheConfigExampleAndTheScripts() throws Exception {
        Path rpmFile = Release.artifact("gpdedup-*.x86_64.rpm");
        assumeTrue(Release.onPath("rpm").isPresent(), "rpm is not installed (apt package rpm): the .rpm is not read");
        Release.Result listed = run("rpm", "-qp", "--list", "--scripts", rpmFile.toString());
        assertEquals(0, listed.exit(), listed::toString);
        for (String file : List.of("/opt/gpdedup/bin/gpbackup_dedup_plugin", "/opt/gpdedup/bin/gpdedup-store", "/opt/gpdedup/runtime/bin/java",
                "/opt/gpdedup/lib/store.aot", "/opt/gpdedup/VERSION", UNIT.toString(), "/etc/gpdedup/store.yaml.example")) {
            assertTrue(listed.out().lines().anyMatch(file::equals), file + " is not in the .rpm:\n" + listed.out());
        }
        assertTrue(listed.out().contains("postinstall scriptlet") && listed.out().contains("useradd --system"), listed.out());
        assertTrue(listed.out().contains("preuninstall scriptlet") && listed.out().contains("systemctl disable"), listed.out());
        assertTrue(run("rpm", "-qp", "--configfiles", rpmFile.toString()).out().contains("/etc/gpdedup/store.yaml.example"));
        // Modes as in the tarball: the launchers and the runtime's java executable, a jar not.
        String modes = run("rpm", "-qp", "--qf", "[%{FILEMODES:perms} %{FILENAMES}\n]", rpmFile.toString()).out();
        for (String exe : List.of("/opt/gpdedup/bin/gpdedup-store", "/opt/gpdedup/bin/gpbackup_dedup_plugin", "/opt/gpdedup/runtime/bin/java",
                "/opt/gpdedup/runtime/lib/jspawnhelper")) {
            assertTrue(modes.contains("-rwxr-xr-x " + exe + "\n"), exe + " is not executable in the .rpm:\n" + modes);
        }
        assertTrue(modes.contains("-rw-r--r-- /opt/gpdedup/lib/store.jar\n"), modes);
    }

    private void verifyUnit(Path analyze, String unit) {
        try {
            Release.Result r = run(analyze.toString(), "verify", UNIT.toString());
            assertEquals(0, r.exit(), r::toString);
            // Warnings come with exit 0: the unit is clean only if nothing is said about it.
            assertFalse((r.out() + r.err()).contains(UNIT.getFileName().toString()), r::toString);
            assertTrue(unit.contains("ExecStart=" + PREFIX.resolve("bin/gpdedup-store")), unit);
        } catch (IOException | InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Runs an administrator's command: with root's PATH, which dpkg needs (ldconfig, start-stop-daemon). */
    private static Release.Result run(String... command) throws IOException, InterruptedException {
        return Release.run(List.of(command), Map.of("PATH", ROOT_PATH), null);
    }

    private static String line(String unit, String key) {
        return unit.lines().filter(l -> l.startsWith(key)).findFirst().orElseThrow(() -> new AssertionError("no " + key + " in the unit")).substring(key.length());
    }

    private static boolean hasFiles(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.anyMatch(Files::isRegularFile);
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
