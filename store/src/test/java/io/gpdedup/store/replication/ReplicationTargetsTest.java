package io.gpdedup.store.replication;

import static io.gpdedup.store.replication.ReplicationQueueTest.QUICK;
import static io.gpdedup.store.replication.ReplicationQueueTest.SOURCE;
import static io.gpdedup.store.replication.ReplicationQueueTest.awaitJob;
import static io.gpdedup.store.replication.ReplicationQueueTest.freePort;
import static io.gpdedup.store.replication.ReplicationQueueTest.target;
import static io.gpdedup.store.replication.ReplicationQueueTest.targets;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.client.ClientTls;
import io.gpdedup.client.HugeFrameServer;
import io.gpdedup.client.StoreClient;
import io.gpdedup.client.StoreServerException;
import io.gpdedup.protocol.wire.ErrorCode;
import io.gpdedup.protocol.wire.FrameCodec;
import io.gpdedup.protocol.wire.ReplicaTarget;
import io.gpdedup.protocol.wire.ReplicationJobStatus.State;
import io.gpdedup.protocol.wire.ReplicationJobStatus;
import io.gpdedup.store.engine.StoreEngine;
import io.gpdedup.store.net.StoreFixture;
import io.gpdedup.store.reliability.ObjectIo;
import io.gpdedup.store.tls.SelfSignedCertificate;
import io.gpdedup.store.tls.TlsSettings;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a unit's user can make the store connect to: only the operator's replication targets
 * (others are refused before anything connects), over TLS with the remote's certificate checked
 * where the target says so, a bounded number of jobs per unit; and a remote that answers with a
 * 2 GiB frame, or a worker hit by an Error, fails that job with its reason while the worker goes on.
 */
@Timeout(300)
class ReplicationTargetsTest {
    private static final String TARGET_PREFIX = "dr/cluster1/backups/20261123/20261123045500/";

    @TempDir
    Path dir;
    private final List<AutoCloseable> open = new ArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (int i = open.size() - 1; i >= 0; i--) {
            open.get(i).close();
        }
    }

    private StoreFixture start(String name, UnaryOperator<ReplicationSettings> replication) {
        StoreFixture s = StoreFixture.start(dir.resolve(name), c -> c.withReplication(replication.apply(QUICK)), e -> e);
        open.add(s);
        return s;
    }

    private static void backup(StoreClient c, String source, int seed) {
        ObjectIo.write(c, source + "gpbackup_0_20261123045500_16384", ObjectIo.random(seed, 200_000), 65_536);
    }

    @Test
    void aRemoteNotOnTheListIsRefusedAndNeverConnectedTo() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open()) {
            listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            listener.configureBlocking(false);
            int probed = listener.socket().getLocalPort();
            int down = freePort();
            StoreFixture primary = start("primary", r -> r.withTargets(targets(down)));
            try (StoreClient p = primary.connectA()) {
                backup(p, SOURCE, 1);
                StoreServerException e = assertThrows(StoreServerException.class,
                        () -> p.replicate(SOURCE, target(probed), StoreFixture.PASSWORD_B));
                assertEquals(ErrorCode.FORBIDDEN, e.code());
                assertTrue(e.getMessage().contains("replication to 127.0.0.1:" + probed + " refused: not among the replication-targets"
                        + " unit '" + StoreFixture.UNIT_A + "' may copy to (dr-" + down + " (127.0.0.1:" + down + "))"), e.getMessage());
                assertEquals(List.of(), p.replicationJobs(), "nothing queued");
                // The same host under another name is another target, as written in the config: refused too.
                assertThrows(StoreServerException.class, () -> p.replicate(SOURCE,
                        new ReplicaTarget("localhost", down, StoreFixture.UNIT_B, StoreFixture.USER_B, TARGET_PREFIX), StoreFixture.PASSWORD_B));

                // Control: a listed remote is queued and tried (it is down), so the worker did run meanwhile.
                long id = p.replicate(SOURCE, target(down), StoreFixture.PASSWORD_B);
                ReplicationJobStatus tried = awaitJob(p, id, j -> j.attempts() >= 2);
                assertTrue(tried.lastError().contains("cannot connect"), tried.lastError());
            }
            assertNull(listener.accept(), "the store never connected to the address it was refused");
        }
    }

    @Test
    void aStoreWithoutTargetsRefusesEveryReplicationNamingTheSetting() throws Exception {
        StoreFixture primary = start("primary", r -> r);
        try (StoreClient p = primary.connectA()) {
            backup(p, SOURCE, 2);
            StoreServerException e = assertThrows(StoreServerException.class,
                    () -> p.replicate(SOURCE, target(freePort()), StoreFixture.PASSWORD_B));
            assertEquals(ErrorCode.FORBIDDEN, e.code());
            assertTrue(e.getMessage().contains("this store's config lists no replication-targets"), e.getMessage());
        }
    }

    @Test
    void aTargetOfOtherUnitsOnlyIsRefusedToThisOne() throws Exception {
        int down = freePort();
        StoreFixture primary = start("primary",
                r -> r.withTargets(List.of(new ReplicationTarget("beta-only", "127.0.0.1", down, null, Set.of(StoreFixture.UNIT_B)))));
        try (StoreClient a = primary.connectA(); StoreClient b = primary.connectB()) {
            backup(a, SOURCE, 3);
            backup(b, SOURCE, 4);
            StoreServerException e = assertThrows(StoreServerException.class, () -> a.replicate(SOURCE, target(down), "x"));
            assertTrue(e.getMessage().contains("may copy to (none)"), e.getMessage());
            assertTrue(b.replicate(SOURCE, target(down), "x") > 0, "the unit it names may use it");
        }
    }

    @Test
    void eachUnitHasABoundedNumberOfJobsWaiting() throws Exception {
        int down = freePort();
        StoreFixture primary = start("primary", r -> r.withTargets(targets(down)).withMaxJobsPerUnit(2));
        try (StoreClient a = primary.connectA(); StoreClient b = primary.connectB()) {
            for (int i = 0; i < 3; i++) {
                backup(a, "c/" + i + "/", 10 + i);
            }
            backup(b, "c/0/", 20);
            long first = a.replicate("c/0/", target(down), "x");
            a.replicate("c/1/", target(down), "x");
            assertEquals(first, a.replicate("c/0/", target(down), "x"), "the same copy again is no new job");
            StoreServerException e = assertThrows(StoreServerException.class, () -> a.replicate("c/2/", target(down), "x"));
            assertEquals(ErrorCode.STORE_ERROR, e.code());
            assertTrue(e.getMessage().contains("unit '" + StoreFixture.UNIT_A + "' already has 2 replication jobs waiting"), e.getMessage());
            assertEquals(2, a.replicationJobs().size());
            assertTrue(b.replicate("c/0/", target(down), "x") > 0, "another unit's jobs are counted apart");
        }
    }

    @Test
    void aTlsTargetIsReachedOverTlsWithItsCertificateChecked() throws Exception {
        SelfSignedCertificate cert = SelfSignedCertificate.generate(dir.resolve("remote-cert"));
        SelfSignedCertificate other = SelfSignedCertificate.generate(dir.resolve("other-cert"));
        StoreFixture remote = StoreFixture.start(dir.resolve("remote"),
                c -> c.withTls(new TlsSettings(cert.certFile(), cert.keyFile(), true)), e -> e);
        open.add(remote);
        int port = remote.port();
        StoreFixture trusting = start("trusting", r -> r.withTargets(List.of(
                new ReplicationTarget("dr", "127.0.0.1", port, ClientTls.trusting(cert.certFile()), Set.of()))));
        StoreFixture wrongCa = start("wrong-ca", r -> r.withTargets(List.of(
                new ReplicationTarget("dr", "127.0.0.1", port, ClientTls.trusting(other.certFile()), Set.of()))));
        StoreFixture plain = start("plain", r -> r.withTargets(targets(port)));
        byte[] data = ObjectIo.random(5, 300_000);
        try (StoreClient t = trusting.connectA(); StoreClient w = wrongCa.connectA(); StoreClient p = plain.connectA()) {
            ObjectIo.write(t, SOURCE + "obj", data, 65_536);
            ReplicationJobStatus done = awaitJob(t, t.replicate(SOURCE, target(port), StoreFixture.PASSWORD_B), j -> j.state() == State.DONE);
            assertEquals(1, done.objectsCopied());

            ObjectIo.write(w, SOURCE + "obj", data, 65_536);
            ReplicationJobStatus refused = awaitJob(w, w.replicate(SOURCE, target(port), StoreFixture.PASSWORD_B), j -> j.attempts() >= 1
                    && j.state() != State.RUNNING);
            assertTrue(refused.lastError().contains("TLS handshake with gpdedup-store at 127.0.0.1:" + port + " failed"), refused.lastError());

            ObjectIo.write(p, SOURCE + "obj", data, 65_536);
            ReplicationJobStatus plainTry = awaitJob(p, p.replicate(SOURCE, target(port), StoreFixture.PASSWORD_B), j -> j.attempts() >= 1
                    && j.state() != State.RUNNING);
            assertTrue(plainTry.lastError().contains("requires TLS"), plainTry.lastError());
        }
        try (StoreClient r = StoreClient.connect(remote.settingsB().withTls(ClientTls.trusting(cert.certFile())))) {
            assertArrayEquals(data, ObjectIo.read(r, TARGET_PREFIX + "obj"));
        }
    }

    @Test
    void aRemoteAnnouncingAHugeFrameFailsTheAttemptNotTheWorker() throws Exception {
        HugeFrameServer fake = HugeFrameServer.start(false);
        open.add(fake);
        StoreFixture remote = start("remote", r -> r);
        StoreFixture primary = start("primary", r -> r.withTargets(targets(fake.port(), remote.port())));
        try (StoreClient p = primary.connectA()) {
            backup(p, SOURCE, 6);
            long hostile = p.replicate(SOURCE, target(fake.port()), StoreFixture.PASSWORD_B);
            ReplicationJobStatus failed = awaitJob(p, hostile, j -> j.attempts() >= 1 && j.state() == State.QUEUED);
            assertTrue(failed.lastError().contains("a frame of " + HugeFrameServer.ANNOUNCED + " bytes, above the "
                    + FrameCodec.LARGEST_MAX_FRAME + " bytes this client takes"), failed.lastError());
            long good = p.replicate(SOURCE, target(remote.port()), StoreFixture.PASSWORD_B);
            assertEquals(State.DONE, awaitJob(p, good, j -> j.state() == State.DONE).state(), "the worker goes on");
        }
        assertTrue(fake.connections() >= 1);
    }

    @Test
    void anErrorInTheWorkerFailsItsJobWithTheReasonAndTheWorkerGoesOn() throws Exception {
        AtomicReference<StoreEngine> engine = new AtomicReference<>();
        StoreFixture primary = StoreFixture.start(dir.resolve("primary"), c -> c, e -> {
            engine.set(e);
            return e;
        });
        open.add(primary);
        StoreFixture remote = start("remote", r -> r);
        try (StoreClient p = primary.connectA()) {
            backup(p, SOURCE, 7);
        }
        AtomicInteger calls = new AtomicInteger();
        ReplicationQueue queue = ReplicationQueue.start(Files.createDirectories(dir.resolve("queue")), engine.get(), QUICK.withTargets(targets(remote.port())),
                settings -> {
                    if (calls.incrementAndGet() == 1) {
                        throw new OutOfMemoryError("Java heap space");
                    }
                    return StoreClient.connect(settings);
                });
        open.add(queue);
        long hit = queue.enqueue(StoreFixture.UNIT_A, SOURCE, target(remote.port()), StoreFixture.PASSWORD_B);
        ReplicationJobStatus failed = awaitStatus(queue, hit, State.FAILED);
        assertEquals("the store ran out of memory while copying (its log has the details)", failed.lastError());
        long next = queue.enqueue(StoreFixture.UNIT_A, SOURCE, new ReplicaTarget("127.0.0.1", remote.port(), StoreFixture.UNIT_B,
                StoreFixture.USER_B, "again/"), StoreFixture.PASSWORD_B);
        assertEquals(1, awaitStatus(queue, next, State.DONE).objectsCopied(), "the worker survived the Error");
    }

    private static ReplicationJobStatus awaitStatus(ReplicationQueue queue, long id, State state) throws InterruptedException {
        for (int i = 0; i < 1200; i++) {
            ReplicationJobStatus s = queue.jobs(StoreFixture.UNIT_A).stream().filter(j -> j.id() == id).findFirst().orElse(null);
            assertNotNull(s);
            if (s.state() == state) {
                return s;
            }
            assertFalse(s.state() == State.FAILED || s.state() == State.DONE, "job ended otherwise: " + s);
            Thread.sleep(100);
        }
        throw new AssertionError("job " + id + " never got " + state);
    }
}
