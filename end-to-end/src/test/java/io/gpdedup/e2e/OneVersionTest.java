package io.gpdedup.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.e2e.fixture.Dist;
import io.gpdedup.e2e.fixture.StoreProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every executable of {@code dist/bin} prints the same version, the build's: the project version
 * and the git commit it was built from; and none prints a logging framework's warning on stderr
 * when it starts (the store is started for real, serving, since that is when its libraries log).
 */
@Timeout(120)
class OneVersionTest {
    private static final List<String> EXECUTABLES = List.of("gpbackup_dedup_plugin", "gpbackup_localfs_plugin", "gpdedup-store", "gpdedup-bench");

    @TempDir
    Path dir;

    @Test
    void everyExecutablePrintsTheBuildsVersionAndNothingOnStderr() throws Exception {
        String repository = Dist.directory().getParent().toString();
        String version = null;
        for (String name : EXECUTABLES) {
            Output o = run(dir, Dist.executable(name).toString(), "--version");
            assertEquals("", o.err(), name + " --version wrote on stderr");
            String[] words = o.out().strip().split(" ");
            assertEquals(List.of(name, "version"), List.of(words[0], words[1]), o.out());
            assertTrue(words.length == 3 && words[2].matches("[0-9]+\\.[0-9]+\\.[0-9]+.*\\+[0-9a-f]{10}"),
                    name + ": expected '<project version>+<commit>', got " + o.out());
            if (version == null) {
                version = words[2];
            }
            assertEquals(version, words[2], name + " prints another version than " + EXECUTABLES.get(0));
        }
        // The commit the build names is this checkout's, or one it has since gone past (a commit made while the tests ran).
        String commit = version.substring(version.lastIndexOf('+') + 1);
        assertEquals(0, new ProcessBuilder("git", "-C", repository, "merge-base", "--is-ancestor", commit, "HEAD").start().waitFor(),
                "the build's commit " + commit + " is not in this checkout's history");
    }

    @Test
    void aServingStoreWritesNoLoggingWarning() throws Exception {
        Path home = dir.resolve("store-home");
        StoreProcess.writeConfig(home, "", "no-warning-password", 1_000);
        try (StoreProcess store = StoreProcess.start(home)) {
            assertTrue(store.port() > 0);
        }
        String err = Files.readString(home.resolve("store.err"));
        assertFalse(err.contains("SLF4J"), err);
    }

    private record Output(String out, String err) {
    }

    private static Output run(Path cwd, String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(false).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        byte[] err = p.getErrorStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " hung");
        assertEquals(0, p.exitValue(), String.join(" ", command) + ": " + new String(err, StandardCharsets.UTF_8));
        return new Output(new String(out, StandardCharsets.UTF_8), new String(err, StandardCharsets.UTF_8));
    }
}
