package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real crash: a child JVM writing, deleting and collecting is killed with SIGKILL, then the store is reopened. */
class KillNineTest {
    @TempDir
    Path dir;

    @Test
    void acknowledgedObjectsSurviveKillNine() throws Exception {
        Path store = dir.resolve("store");
        Set<String> acknowledged = new HashSet<>();
        Set<String> deleted = new HashSet<>();
        Set<String> deleting = new HashSet<>();
        int[] killAfter = {7, 23, 41};
        for (int round = 0; round < killAfter.length; round++) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                    CrashWriter.class.getName(), store.toString(), Integer.toString(round))
                    .redirectError(dir.resolve("child-" + round + ".err").toFile()).start();
            int commits = 0;
            try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                // After the kill, read on to EOF: what the child printed before SIGKILL landed
                // (another commit, a deletion) was acknowledged too.
                while ((line = in.readLine()) != null) {
                    if (line.startsWith("COMMITTED ")) {
                        acknowledged.add(line.substring(10));
                        if (++commits == killAfter[round]) {
                            // SIGKILL, mid-stream; through the handle, which unlike Process.destroy
                            // leaves the child's stdout readable to its end.
                            p.toHandle().destroyForcibly();
                        }
                    } else if (line.startsWith("DELETING ")) {
                        deleting.add(line.substring(9));
                    } else if (line.startsWith("DELETED ")) {
                        deleted.add(line.substring(8));
                    }
                }
            } finally {
                p.destroyForcibly();
                assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            }
            Path err = dir.resolve("child-" + round + ".err");
            assertTrue(commits >= killAfter[round], "the child died before it was killed (round " + round + "): "
                    + Files.readString(err));

            try (DiskStoreEngine engine = DiskStoreEngine.open(store, EngineSettings.defaults().withContainerSizeBytes(32 << 10))) {
                StorageUnit unit = engine.unit("u1");
                Set<String> listed = new HashSet<>();
                for (ObjectInfo o : unit.list("")) {
                    listed.add(o.name());
                    // whatever is visible restores byte for byte, acknowledged or not
                    assertArrayEquals(CrashWriter.content(o.name()), TestObjects.restore(unit, o.name()), o.name());
                }
                for (String a : acknowledged) {
                    // an unacknowledged deletion may or may not have happened
                    if (!deleting.contains(a)) {
                        assertTrue(listed.contains(a), "acknowledged object " + a + " lost");
                    }
                }
                for (String d : deleted) {
                    assertTrue(!listed.contains(d), "acknowledged deletion of " + d + " undone");
                }
                VerifyReport v = unit.verify();
                assertTrue(v.ok(), v.toString());
            }
        }
        assertTrue(new File(store.toFile(), "units/u1/recipes").list().length > 0);
        assertTrue(List.of(store.toFile().list()).contains("store.lock"));
    }
}
