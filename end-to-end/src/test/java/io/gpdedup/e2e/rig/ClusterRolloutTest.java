package io.gpdedup.e2e.rig;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import io.gpdedup.e2e.layout.ConfigFile;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * {@code gpdedup-cluster} (scripts/cluster) on the rig, as gpadmin, through the cluster's own gpssh
 * and gpscp: release tarballs made from {@code dist/} in the release layout, installed, switched
 * and refused; then {@code check} of a plugin config against a real store, from every host. The
 * tests run in order: the check uses the release the first test installed.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@ExtendWith(RigReady.class)
@Execution(ExecutionMode.CONCURRENT)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(value = 20, unit = TimeUnit.MINUTES)
class ClusterRolloutTest {
    private static final Duration LIMIT = Duration.ofMinutes(5);
    private static final String PLUGIN = "gpbackup_dedup_plugin";
    private static final String UNREACHABLE = "gpdedup-unreachable.invalid";

    private Rig rig;
    private Path root;
    private Path script;
    private Path prefix;
    private List<String> hosts;
    /** What the plugin prints: the project version, "+", the commit (scripts/lib/build-info). */
    private String printed;
    /** The release as packaged: gpdedup-PROJECT_VERSION/, its VERSION file what the plugin prints. */
    private Path release;
    private String releaseVersion;
    /** The same build released under the full version string: a second, newer release. */
    private Path next;
    private StoreProcess store;

    @BeforeAll
    void start() throws Exception {
        rig = Rig.prepared();
        if (rig == null) {
            return;
        }
        root = Files.createTempDirectory(Paths.get("/tmp"), "gpdedup-rig-rollout-");
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        own(root);
        script = root.resolve("gpdedup-cluster");
        Files.copy(repository().resolve("scripts/cluster/gpdedup-cluster"), script);
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        prefix = gpadminDirectory("opt");
        hosts = clusterHosts();
        printed = versionOf(Dist.executable(PLUGIN));
        int plus = printed.indexOf('+');
        assertTrue(plus > 0, "the plugin prints its version with the commit after '+': " + printed);
        releaseVersion = printed.substring(0, plus);
        Optional<Path> built = built(releaseVersion);
        release = built.isPresent() ? built.get() : tarball(releaseVersion, printed, "release", null);
        next = tarball(printed, printed, "next", null);
        store = StoreProcess.start(root.resolve("store-home"));
    }

    @AfterAll
    void stop() throws Exception {
        try {
            if (store != null) {
                store.close();
            }
        } finally {
            if (root != null) {
                // check runs the plugin as a segment would, agent and all
                HostAgents.kill(root);
                if (!Boolean.getBoolean("gpdedup.e2e.keep")) {
                    Rig.deleteTree(root);
                }
            }
        }
    }

    @Test
    @Order(1)
    @Execution(ExecutionMode.SAME_THREAD)
    void installsOnEveryHostThenSwitchesToTheNextRelease() throws Exception {
        String version = releaseVersion;
        AsGpadmin.Outcome first = cluster("install", release.toString(), "--prefix", prefix.toString());
        assertEquals(0, first.exit(), first.describe());
        for (String h : hosts) {
            assertTrue(lineOf(first, h).startsWith(h + ": installed " + prefix + "/gpdedup -> gpdedup-" + version + " "), first.output());
        }
        assertEquals("gpdedup-" + version, Files.readSymbolicLink(prefix.resolve("gpdedup")).toString());
        assertEquals(printed, versionOf(prefix.resolve("gpdedup/bin/" + PLUGIN)), "the plugin through the link");
        assertEquals(List.of(), staging(prefix));

        AsGpadmin.Outcome again = cluster("install", release.toString(), "--prefix", prefix.toString());
        assertEquals(0, again.exit(), again.describe());
        for (String h : hosts) {
            assertEquals(h + ": gpdedup-" + version + " already installed at " + prefix + "/gpdedup, left as is", lineOf(again, h));
        }

        AsGpadmin.Outcome upgrade = cluster("install", next.toString(), "--prefix", prefix.toString());
        assertEquals(0, upgrade.exit(), upgrade.describe());
        for (String h : hosts) {
            assertTrue(lineOf(upgrade, h).startsWith(h + ": installed " + prefix + "/gpdedup -> gpdedup-" + printed + " "), upgrade.output());
            assertTrue(lineOf(upgrade, h).endsWith("was gpdedup-" + version + ")"), upgrade.output());
        }
        assertEquals("gpdedup-" + printed, Files.readSymbolicLink(prefix.resolve("gpdedup")).toString());
        assertTrue(Files.isDirectory(prefix.resolve("gpdedup-" + version)), "the previous release stays for a switch back");
        assertEquals(List.of(), staging(prefix));
    }

    @Test
    @Order(2)
    @Execution(ExecutionMode.SAME_THREAD)
    void checkLogsInToTheStoreFromEveryHost() throws Exception {
        Map<String, String> options = new LinkedHashMap<>(store.demoOptions("rollout"));
        options.put("log_directory", gpadminDirectory("logs").toString());
        AsGpadmin.Outcome ok = cluster("check", config("good.yaml", options).toString());
        assertEquals(0, ok.exit(), ok.describe());
        for (String h : hosts) {
            assertTrue(lineOf(ok, h).startsWith(h + ": ok version " + printed + ", store 127.0.0.1:" + store.port() + " unit "
                    + StoreProcess.DEMO_UNIT + " (protocol "), ok.output());
        }

        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        Map<String, String> away = new LinkedHashMap<>(options);
        away.put("port", String.valueOf(closed));
        AsGpadmin.Outcome refused = cluster("check", config("away.yaml", away).toString());
        assertEquals(1, refused.exit(), refused.describe());
        for (String h : hosts) {
            String line = lineOf(refused, h);
            assertTrue(line.startsWith(h + ": FAILED version " + printed + ", store check failed (exit 1): "), refused.output());
            assertTrue(line.contains("127.0.0.1:" + closed), line);
        }

        Map<String, String> wrong = new LinkedHashMap<>(options);
        wrong.put("password", "not-" + StoreProcess.DEMO_PASSWORD);
        AsGpadmin.Outcome login = cluster("check", config("wrong.yaml", wrong).toString());
        assertEquals(1, login.exit(), login.describe());
        for (String h : hosts) {
            assertTrue(lineOf(login, h).contains("refused user '" + StoreProcess.DEMO_USER + "'"), login.output());
        }

        // a plugin without a store: its version only
        Path localfs = root.resolve("localfs.yaml");
        Files.writeString(localfs, ConfigFile.render(prefix.resolve("gpdedup/bin/gpbackup_localfs_plugin").toString(),
                Map.of("directory", gpadminDirectory("localfs").toString())), StandardCharsets.UTF_8);
        own(localfs);
        AsGpadmin.Outcome storeless = cluster("check", localfs.toString());
        assertEquals(0, storeless.exit(), storeless.describe());
        for (String h : hosts) {
            assertEquals(h + ": ok version " + printed + " (no store to check)", lineOf(storeless, h));
        }

        AsGpadmin.Outcome partly = cluster("check", config("good.yaml", options).toString(), "--hostfile", hostFile().toString());
        assertEquals(1, partly.exit(), partly.describe());
        assertEquals(UNREACHABLE + ": FAILED cannot be reached: gpssh could not log in to it", lineOf(partly, UNREACHABLE));
        for (String h : hosts) {
            assertTrue(lineOf(partly, h).startsWith(h + ": ok version "), partly.output());
        }
    }

    /**
     * An encrypted password: the check hands the plugin the secret of the coordinator's .encrypt, as
     * gpbackup does; a scratch coordinator directory stands in for the rig's, whose .encrypt other
     * tests use.
     */
    @Test
    @Order(3)
    @Execution(ExecutionMode.SAME_THREAD)
    void checkGivesTheSecretForAnEncryptedPassword() throws Exception {
        Map<String, String> options = new LinkedHashMap<>(store.demoOptions("rollout"));
        options.put("log_directory", gpadminDirectory("logs").toString());
        Path coordinator = gpadminDirectory("coordinator");
        Path encrypt = coordinator.resolve(".encrypt");
        Files.writeString(encrypt, PLUGIN + ": rollout-test-secret\n", StandardCharsets.UTF_8);
        own(encrypt);
        // encrypt_password runs as root here: a log of its own, so gpadmin's plugin log stays gpadmin's
        Map<String, String> plain = new LinkedHashMap<>(options);
        plain.put("log_directory", Files.createDirectories(root.resolve("logs-encrypt")).toString());
        options.put("password", encrypted(config("plain.yaml", plain), encrypt, StoreProcess.DEMO_PASSWORD));
        options.put("password_encryption", "on");
        Path config = config("encrypted.yaml", options);
        List<String> environment = List.of("COORDINATOR_DATA_DIRECTORY=" + coordinator, "MASTER_DATA_DIRECTORY=" + coordinator);

        AsGpadmin.Outcome ok = cluster(environment, "check", config.toString());
        assertEquals(0, ok.exit(), ok.describe());
        for (String h : hosts) {
            assertTrue(lineOf(ok, h).startsWith(h + ": ok version " + printed + ", store 127.0.0.1:" + store.port() + " unit "), ok.output());
        }

        Files.writeString(encrypt, "gpbackup_ddboost_plugin: another-plugins-secret\n", StandardCharsets.UTF_8);
        AsGpadmin.Outcome missing = cluster(environment, "check", config.toString());
        assertEquals(2, missing.exit(), missing.describe());
        assertEquals("gpdedup-cluster: the config's password is encrypted, and " + coordinator + "/.encrypt has no '" + PLUGIN + ":' key",
                missing.output().strip());
    }

    @Test
    @Order(4)
    @Execution(ExecutionMode.SAME_THREAD)
    void aFailedInstallLeavesTheWorkingReleaseInPlace() throws Exception {
        Path link = prefix.resolve("gpdedup");
        String working = Files.readSymbolicLink(link).toString();
        String version = releaseVersion;
        Path marker = prefix.resolve(".gpdedup-" + version + ".sha256");
        String installed = Files.readString(marker, StandardCharsets.UTF_8);

        // VERSION says 9.9.9, the plugin another version: unpacked, checked, refused, removed
        Path mismatched = tarball("9.9.9", "9.9.9", "mismatched", null);
        AsGpadmin.Outcome wrong = cluster("install", mismatched.toString(), "--prefix", prefix.toString());
        assertEquals(1, wrong.exit(), wrong.describe());
        for (String h : hosts) {
            assertEquals(h + ": FAILED " + prefix + "/gpdedup-9.9.9/bin/" + PLUGIN + " --version printed '" + PLUGIN + " version " + printed
                    + "', not version 9.9.9", lineOf(wrong, h));
        }
        assertFalse(Files.exists(prefix.resolve("gpdedup-9.9.9")), "the partial release is removed");
        assertFalse(Files.exists(prefix.resolve(".gpdedup-9.9.9.sha256")));

        // another tarball under a version that is already installed (its VERSION file the project
        // version alone, which the plugin's VERSION+commit matches too)
        Path other = tarball(version, version, "other", "NOTICE");
        AsGpadmin.Outcome clash = cluster("install", other.toString(), "--prefix", prefix.toString());
        assertEquals(1, clash.exit(), clash.describe());
        for (String h : hosts) {
            assertEquals(h + ": FAILED " + prefix + "/gpdedup-" + version + " is already there from another tarball; remove it, or install under a new version",
                    lineOf(clash, h));
        }
        assertEquals(installed, Files.readString(marker, StandardCharsets.UTF_8));
        assertFalse(Files.exists(prefix.resolve("gpdedup-" + version + "/NOTICE")));

        // a host gpssh cannot reach: nothing is copied anywhere
        Path fresh = gpadminDirectory("fresh");
        AsGpadmin.Outcome partly = cluster("install", release.toString(), "--prefix", fresh.toString(), "--hostfile", hostFile().toString());
        assertEquals(1, partly.exit(), partly.describe());
        assertEquals(UNREACHABLE + ": FAILED cannot be reached: gpssh could not log in to it", lineOf(partly, UNREACHABLE));
        for (String h : hosts) {
            assertEquals(h + ": not installed: another host failed; no release or link changed under " + fresh, lineOf(partly, h));
        }
        try (Stream<Path> left = Files.list(fresh)) {
            assertEquals(List.of(), left.toList());
        }

        // not a tarball at all: refused before any host is touched
        Path junk = root.resolve("gpdedup-junk.tar.gz");
        Files.writeString(junk, "not a tarball\n");
        AsGpadmin.Outcome bad = cluster("install", junk.toString(), "--prefix", prefix.toString());
        assertEquals(2, bad.exit(), bad.describe());
        assertTrue(bad.output().startsWith("gpdedup-cluster: " + junk + " is not a gzip'd tar file"), bad.output());
        assertEquals(1, bad.output().lines().count(), bad.output());

        // a VERSION file that contradicts its directory: refused on the coordinator too
        Path contradicting = root.resolve("gpdedup-1.2.3-contradicting.tar.gz");
        sh("mkdir -p \"$0\"/gpdedup-1.2.3/bin && touch \"$0\"/gpdedup-1.2.3/bin/" + PLUGIN + " && echo 4.5.6 > \"$0\"/gpdedup-1.2.3/VERSION"
                + " && tar -C \"$0\" -czf \"$1\" gpdedup-1.2.3", root.resolve("tree-contradicting").toString(), contradicting.toString());
        AsGpadmin.Outcome says = cluster("install", contradicting.toString(), "--prefix", prefix.toString());
        assertEquals(2, says.exit(), says.describe());
        assertEquals("gpdedup-cluster: " + contradicting + ": gpdedup-1.2.3/VERSION says '4.5.6', not 1.2.3 or 1.2.3+<build>", says.output().strip());
        assertFalse(Files.exists(prefix.resolve("gpdedup-1.2.3")));

        assertEquals(working, Files.readSymbolicLink(link).toString(), "every failure left the link alone");
        assertEquals(printed, versionOf(link.resolve("bin/" + PLUGIN)));
        assertEquals(List.of(), staging(prefix));
    }

    private AsGpadmin.Outcome cluster(String... args) throws IOException, InterruptedException {
        return cluster(List.of(), args);
    }

    /** gpdedup-cluster with {@code environment} ({@code NAME=value}) on top of the rig's. */
    private AsGpadmin.Outcome cluster(List<String> environment, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("env"));
        command.addAll(environment);
        command.add(script.toString());
        command.addAll(List.of(args));
        AsGpadmin.Outcome o = rig.run(root, root.resolve("logs-cluster").resolve(args[0] + "-" + System.nanoTime() + ".log"), LIMIT, command);
        System.out.print("gpdedup-cluster " + String.join(" ", args) + " (exit " + o.exit() + "):\n" + o.output());
        assertFalse(o.timedOut(), o.describe());
        return o;
    }

    /** The one line the command printed for {@code host}. */
    private static String lineOf(AsGpadmin.Outcome o, String host) {
        List<String> lines = o.output().lines().filter(l -> l.startsWith(host + ": ")).toList();
        assertEquals(1, lines.size(), "one line for " + host + ":\n" + o.output());
        return lines.get(0);
    }

    /** Staging directories of installs: none may outlive its run. */
    private static List<Path> staging(Path dir) throws IOException {
        try (Stream<Path> all = Files.list(dir)) {
            return all.filter(p -> p.getFileName().toString().startsWith(".gpdedup-stage-")).toList();
        }
    }

    /**
     * A release tarball of {@code dist/} in the release layout: {@code gpdedup-VERSION/} with the
     * executables and gpdedup-cluster in bin/, lib/, and a VERSION file that says {@code stamped};
     * {@code extraFile} (may be null) an added file, to make another tarball of the same version.
     */
    private Path tarball(String version, String stamped, String name, String extraFile) throws IOException, InterruptedException {
        Path tree = root.resolve("tree-" + name);
        Path top = tree.resolve("gpdedup-" + version);
        Files.createDirectories(top);
        sh("cp -a \"$0\"/. \"$1\"/", Dist.directory().toString(), top.toString());
        Files.copy(script, top.resolve("bin/gpdedup-cluster"));
        Files.writeString(top.resolve("VERSION"), stamped + "\n");
        if (extraFile != null) {
            Files.writeString(top.resolve(extraFile), "another build\n");
        }
        Path out = root.resolve("gpdedup-" + version + "-" + name + "-linux-x86_64.tar.gz");
        // gzip -1: the tests care about the layout, not the ratio
        sh("tar -C \"$0\" -cf - \"$1\" | gzip -1 > \"$2\"", tree.toString(), top.getFileName().toString(), out.toString());
        Rig.deleteTree(tree);
        return out;
    }

    /**
     * The product tarball the distribution module's release profile built (scripts/test turns it on),
     * copied where gpadmin can read it; empty in a build without the release.
     */
    private Optional<Path> built(String version) throws IOException {
        Path built = repository().resolve("distribution/target/release/gpdedup-" + version + "-linux-x86_64.tar.gz");
        if (!Files.isRegularFile(built)) {
            return Optional.empty();
        }
        return Optional.of(Files.copy(built, root.resolve(built.getFileName())));
    }

    private Path config(String name, Map<String, String> options) throws IOException {
        Path file = root.resolve(name);
        Files.writeString(file, ConfigFile.render(prefix.resolve("gpdedup/bin/" + PLUGIN).toString(), options), StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        own(file);
        return file;
    }

    /** {@code password} encrypted with the secret of {@code encryptFile}, by the plugin's encrypt_password. */
    private static String encrypted(Path config, Path encryptFile, String password) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(Dist.executable(PLUGIN).toString(), "encrypt_password", config.toString(), encryptFile.toString());
        pb.environment().put("GPDEDUP_AGENT", "off");
        Process p = pb.redirectError(ProcessBuilder.Redirect.INHERIT).start();
        p.getOutputStream().write((password + "\n").getBytes(StandardCharsets.UTF_8));
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertTrue(p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS), "encrypt_password finished");
        assertEquals(0, p.exitValue(), "encrypt_password");
        return out;
    }

    private Path hostFile() throws IOException {
        Path file = root.resolve("hosts-with-unreachable");
        List<String> lines = new ArrayList<>(hosts);
        lines.add(UNREACHABLE);
        Files.write(file, lines, StandardCharsets.UTF_8);
        own(file);
        return file;
    }

    private Path gpadminDirectory(String name) throws IOException {
        Path d = Files.createDirectories(root.resolve(name));
        own(d);
        return d;
    }

    private List<String> clusterHosts() throws Exception {
        List<String> out = new ArrayList<>();
        try (Connection c = rig.connect("postgres"); Statement s = c.createStatement();
                ResultSet r = s.executeQuery("select distinct hostname from gp_segment_configuration order by 1")) {
            while (r.next()) {
                out.add(r.getString(1));
            }
        }
        return out;
    }

    /** What {@code executable --version} prints after "version ", run as gpadmin, in-process (no host agent left behind). */
    private String versionOf(Path executable) throws IOException, InterruptedException {
        AsGpadmin.Outcome o = rig.run(root, root.resolve("logs-cluster").resolve("version-" + System.nanoTime() + ".log"), LIMIT,
                List.of("env", "GPDEDUP_AGENT=off", executable.toString(), "--version"));
        assertEquals(0, o.exit(), o.describe());
        String line = o.output().strip();
        assertTrue(line.startsWith(PLUGIN + " version "), line);
        return line.substring((PLUGIN + " version ").length());
    }

    private static void sh(String script, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("bash", "-c", script));
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(LIMIT.toSeconds(), TimeUnit.SECONDS), script);
        assertEquals(0, p.exitValue(), script + ": " + out);
    }

    private static Path repository() {
        return Paths.get(System.getProperty(Rig.REPOSITORY_PROPERTY)).toAbsolutePath().normalize();
    }

    private static void own(Path p) throws IOException {
        UserPrincipal gpadmin = p.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(AsGpadmin.USER);
        Files.setOwner(p, gpadmin);
    }
}
