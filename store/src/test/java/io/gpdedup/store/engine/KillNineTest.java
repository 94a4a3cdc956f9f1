package io.gpdedup.store.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.protocol.model.ObjectInfo;
import io.gpdedup.protocol.report.VerifyReport;
import io.gpdedup.store.s3.LeaseHeldException;
import io.gpdedup.store.s3.S3Backend;
import io.gpdedup.store.s3.S3Settings;
import io.gpdedup.store.s3.TestBuckets;
import io.gpdedup.testsupport.S3Server;
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A real crash: a child JVM writing, deleting and collecting is killed with SIGKILL, then the store
 * is reopened. On S3 each check is made by another store (another data directory, an empty cache)
 * once the killed store's lease lapsed, as when a store node is lost and another takes its units.
 */
class KillNineTest {
    private static final int LEASE_SECONDS = 6;

    @TempDir
    Path dir;

    /** The bucket of a child or a checking store; the lease short, so that a killed holder's lapses soon. */
    static S3Settings s3(URI endpoint, String bucket, Path dataDir) {
        return TestBuckets.at(endpoint, bucket, dataDir.resolveSibling(dataDir.getFileName() + "-cache")).withLeaseSeconds(LEASE_SECONDS);
    }

    @ParameterizedTest
    @EnumSource(TestEngines.Backend.class)
    void acknowledgedObjectsSurviveKillNine(TestEngines.Backend backend) throws Exception {
        Path store = dir.resolve("store");
        List<String> s3Args = new ArrayList<>();
        if (backend == TestEngines.Backend.S3) {
            S3Server server = S3Server.shared();
            s3Args = List.of(server.endpoint().toString(), server.newBucket("kill-nine"));
        }
        Set<String> acknowledged = new HashSet<>();
        Set<String> deleted = new HashSet<>();
        Set<String> deleting = new HashSet<>();
        int[] killAfter = {7, 23, 41};
        for (int round = 0; round < killAfter.length; round++) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path")));
            String settle = System.getProperty("gpdedup.s3.lease-settle-millis");
            if (settle != null) {
                command.add("-Dgpdedup.s3.lease-settle-millis=" + settle); // the tests' shorter lease settle (the root pom) for the child too
            }
            command.addAll(List.of(CrashWriter.class.getName(), store.toString(), Integer.toString(round)));
            command.addAll(s3Args);
            Process p = new ProcessBuilder(command)
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

            Path checker = backend == TestEngines.Backend.S3 ? dir.resolve("checker-" + round) : store;
            try (DedupStoreEngine engine = backend == TestEngines.Backend.S3
                    ? DedupStoreEngine.open(checker, CrashWriter.SETTINGS, S3Backend.factory(s3(URI.create(s3Args.get(0)), s3Args.get(1), checker)))
                    : DedupStoreEngine.open(store, CrashWriter.SETTINGS)) {
                StorageUnit unit = takeOver(engine);
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
        if (backend == TestEngines.Backend.LOCAL) {
            assertTrue(new File(store.toFile(), "units/u1/recipes").list().length > 0);
        }
        assertTrue(List.of(store.toFile().list()).contains("store.lock"));
    }

    /** The unit, once the killed child's lease has lapsed (at once on local disk, which has no leases). */
    private static StorageUnit takeOver(DedupStoreEngine engine) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return engine.unit("u1");
            } catch (LeaseHeldException e) {
                assertTrue(e.getMessage().contains("is served by the store on host"), e.getMessage());
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(500);
            }
        }
    }
}
