package io.gpdedup.store.replication;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.ReplicaTarget;
import io.gpdedup.protocol.wire.ReplicationJobStatus.State;
import io.gpdedup.protocol.wire.ReplicationJobStatus;
import io.gpdedup.store.net.StoreFixture;
import io.gpdedup.store.reliability.ObjectIo;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store's background replication between two real stores on loopback: REPLICATE queues a job,
 * the primary's worker copies the backup to the remote's unit, a remote that is down is retried
 * until it is up, the queue outlives a restart, and a job never shows its password.
 */
@Timeout(300)
class ReplicationQueueTest {
    static final String SOURCE = "cluster1/backups/20261123/20261123045500/";
    private static final String TARGET = "dr/cluster1/backups/20261123/20261123045500/";
    private static final Duration PATIENCE = Duration.ofSeconds(120);
    /** Retries every second or two, so a test that waits for one does not wait for minutes. */
    static final ReplicationSettings QUICK = new ReplicationSettings(Duration.ofSeconds(1), Duration.ofSeconds(2), 1000);

    @TempDir
    Path dir;
    private final List<StoreFixture> stores = new ArrayList<>();

    @AfterEach
    void stop() {
        stores.forEach(StoreFixture::close);
    }

    private StoreFixture start(String name, int port, int... remotePorts) {
        StoreFixture s = StoreFixture.start(dir.resolve(name), c -> c.withPort(port).withReplication(QUICK.withTargets(targets(remotePorts))),
                e -> e);
        stores.add(s);
        return s;
    }

    /** Plain-TCP targets on loopback, one per port, for every unit. */
    static List<ReplicationTarget> targets(int... ports) {
        return Arrays.stream(ports).mapToObj(p -> new ReplicationTarget("dr-" + p, "127.0.0.1", p, null, Set.of())).toList();
    }

    static ReplicaTarget target(int port) {
        return new ReplicaTarget("127.0.0.1", port, StoreFixture.UNIT_B, StoreFixture.USER_B, TARGET);
    }

    @Test
    void aQueuedCopyReachesTheRemoteChunkForChunk() throws Exception {
        StoreFixture remote = start("remote", 0);
        StoreFixture primary = start("primary", 0, remote.port());
        byte[] a = ObjectIo.random(1, 700_000);
        byte[] b = ObjectIo.random(2, 300_000);
        try (StoreClient p = primary.connectA()) {
            ObjectIo.write(p, SOURCE + "gpbackup_0_20261123045500_16384", a, 65_536);
            ObjectIo.write(p, SOURCE + "gpbackup_20261123045500_report", b, 65_536);
            long id = p.replicate(SOURCE, target(remote.port()), StoreFixture.PASSWORD_B);
            ReplicationJobStatus done = awaitJob(p, id, j -> j.state() == State.DONE);
            assertEquals(2, done.objectsCopied());
            assertEquals(1, done.attempts());
            assertTrue(done.bytesSent() >= a.length + b.length, "every chunk was new to the remote: " + done);
            assertEquals("", done.lastError());
            // Queueing the same copy again after it is done finds every object there already: nothing travels.
            long again = p.replicate(SOURCE, target(remote.port()), StoreFixture.PASSWORD_B);
            assertTrue(again != id);
            assertEquals(0, awaitJob(p, again, j -> j.state() == State.DONE).bytesSent());
        }
        try (StoreClient r = remote.connectB()) {
            assertArrayEquals(a, ObjectIo.read(r, TARGET + "gpbackup_0_20261123045500_16384"));
            assertArrayEquals(b, ObjectIo.read(r, TARGET + "gpbackup_20261123045500_report"));
        }
        // Another unit's user sees none of unit A's jobs.
        try (StoreClient other = primary.connectB()) {
            assertEquals(List.of(), other.replicationJobs());
        }
        String metrics = primary.service.metrics().scrape();
        assertTrue(metrics.contains("gpdedup_store_replication_jobs_completed_total 2.0"), metrics);
        assertTrue(metrics.contains("gpdedup_store_replication_jobs{state=\"queued\"} 0.0"), metrics);
    }

    @Test
    void aRemoteThatIsDownIsRetriedUntilItIsUpAndTheQueueOutlivesARestart() throws Exception {
        int remotePort = freePort();
        StoreFixture primary = start("primary", 0, remotePort);
        byte[] a = ObjectIo.random(3, 400_000);
        long id;
        try (StoreClient p = primary.connectA()) {
            ObjectIo.write(p, SOURCE + "gpbackup_0_20261123045500_16384", a, 65_536);
            id = p.replicate(SOURCE, target(remotePort), StoreFixture.PASSWORD_B);
            ReplicationJobStatus waiting = awaitJob(p, id, j -> j.attempts() >= 2 && j.state() == State.QUEUED);
            assertTrue(waiting.lastError().contains("cannot connect"), waiting.lastError());
            assertTrue(waiting.nextAttemptAtMillis() > 0);
            assertEquals(id, p.replicate(SOURCE, target(remotePort), StoreFixture.PASSWORD_B), "a waiting copy is not queued twice");
        }
        Path queueFile = primary.dataDir.resolve(JobFile.NAME);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(queueFile)));
        assertTrue(Files.readString(queueFile).contains(StoreFixture.PASSWORD_B), "the waiting job keeps its password for the restart");

        primary.close();
        stores.remove(primary);
        StoreFixture restarted = start("primary", 0, remotePort);
        StoreFixture remote = start("remote", remotePort);
        try (StoreClient p = restarted.connectA()) {
            ReplicationJobStatus done = awaitJob(p, id, j -> j.state() == State.DONE);
            assertTrue(done.attempts() >= 3, "attempts count across the restart: " + done);
        }
        try (StoreClient r = remote.connectB()) {
            assertArrayEquals(a, ObjectIo.read(r, TARGET + "gpbackup_0_20261123045500_16384"));
        }
        assertFalse(Files.readString(queueFile).contains(StoreFixture.PASSWORD_B), "a finished job forgets its password");
    }

    @Test
    void otherDataUnderTheTargetNamesFailsTheJobForGood() throws Exception {
        StoreFixture remote = start("remote", 0);
        StoreFixture primary = start("primary", 0, remote.port());
        try (StoreClient p = primary.connectA(); StoreClient r = remote.connectB()) {
            ObjectIo.write(p, SOURCE + "gpbackup_0_20261123045500_16384", ObjectIo.random(4, 100_000), 65_536);
            ObjectIo.write(r, TARGET + "gpbackup_0_20261123045500_16384", ObjectIo.random(5, 100_000), 65_536);
            long id = p.replicate(SOURCE, target(remote.port()), StoreFixture.PASSWORD_B);
            ReplicationJobStatus failed = awaitJob(p, id, j -> j.state() == State.FAILED);
            assertEquals(1, failed.attempts());
            assertTrue(failed.lastError().contains("already holds a different object"), failed.lastError());
        }
    }

    @Test
    void nothingToCopyIsRefusedAtOnce() throws IOException {
        int port = freePort();
        StoreFixture primary = start("primary", 0, port);
        try (StoreClient p = primary.connectA()) {
            StoreServerException e = assertThrows(StoreServerException.class, () -> p.replicate(SOURCE, target(port), StoreFixture.PASSWORD_B));
            assertEquals(ErrorCode.BAD_REQUEST, e.code());
            assertTrue(e.getMessage().contains("no objects under '" + SOURCE + "'"), e.getMessage());
            assertEquals(List.of(), p.replicationJobs());
        }
    }

    @Test
    void anUnreadableQueueStopsTheStartNamingTheFileButNotItsContent() throws IOException {
        Path data = Files.createDirectories(dir.resolve("primary"));
        Files.writeString(data.resolve(JobFile.NAME), "{\"format\": 1, \"jobs\": [{\"remote-password\": \"hunter2-secret\"");
        RuntimeException e = assertThrows(RuntimeException.class, () -> start("primary", 0));
        assertTrue(e.getMessage().contains(data.resolve(JobFile.NAME) + " is unreadable"), e.getMessage());
        assertFalse(e.getMessage().contains("hunter2"), e.getMessage());
    }

    @Test
    void retriesWaitTwiceAsLongEachTimeUpToTheLimit() {
        ReplicationSettings s = new ReplicationSettings(Duration.ofSeconds(2), Duration.ofSeconds(30), 5);
        assertEquals(List.of(2L, 4L, 8L, 16L, 30L, 30L), List.of(1, 2, 3, 4, 5, 40).stream().map(n -> s.delayAfter(n).toSeconds()).toList());
    }

    static ReplicationJobStatus awaitJob(StoreClient client, long id, Predicate<ReplicationJobStatus> condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + PATIENCE.toNanos();
        ReplicationJobStatus last = null;
        while (System.nanoTime() < deadline) {
            last = client.replicationJobs().stream().filter(j -> j.id() == id).findFirst().orElse(null);
            if (last != null && condition.test(last)) {
                assertFalse(last.toString().contains(StoreFixture.PASSWORD_B), "a job status never holds the password");
                return last;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("job " + id + " did not get there within " + PATIENCE + "; last seen: " + last);
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
