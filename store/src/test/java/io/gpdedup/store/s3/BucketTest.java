package io.gpdedup.store.s3;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.testsupport.FaultProxy;
import io.gpdedup.testsupport.S3Server;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;

/** The bucket client against a real S3 server (S3Proxy), directly and through a fault-injecting proxy. */
@Timeout(300)
class BucketTest {
    @TempDir
    Path dir;

    @Test
    void writesReadsListsAndDeletes() throws Exception {
        S3Settings s = TestBuckets.fresh("bucket-basics", dir);
        try (Bucket b = Bucket.open(s)) {
            b.check();
            byte[] data = new byte[100_000];
            new Random(1).nextBytes(data);
            b.put("a/one", data);
            Path f = Files.write(dir.resolve("f"), new byte[] {1, 2, 3});
            b.putFile("a/two", f);
            b.put("b/three", new byte[0]);
            assertArrayEquals(data, b.get("a/one").orElseThrow());
            assertArrayEquals(java.util.Arrays.copyOfRange(data, 500, 1500), b.getRange("a/one", 500, 1000));
            assertEquals(List.of("a/one", "a/two"), b.list("a/").stream().map(Bucket.Listed::key).toList());
            assertEquals(100_000, b.list("a/one").get(0).size());
            assertTrue(b.get("a/none").isEmpty());
            assertFalse(b.conditionalWrites(), "S3Proxy 2.6 ignores If-None-Match on PUT: leases use the settle scheme there");
            b.deleteAll(List.of("a/one", "a/two", "a/never-was"));
            assertEquals(List.of("b/three"), b.list("").stream().map(Bucket.Listed::key).toList());
            assertEquals(s.prefix(), "site1/");
            assertTrue(S3Server.shared().bucketDirectory(s.bucket()).resolve("site1").toFile().exists(), "keys live under the prefix");
        }
    }

    @Test
    void aStartSaysWhatIsWrongWithTheBucket() throws Exception {
        S3Settings good = TestBuckets.fresh("bucket-check", dir);
        try (Bucket b = Bucket.open(good.withLeaseSeconds(10))) {
            b.check();
        }
        S3Settings missing = TestBuckets.at(good.endpoint(), "no-such-bucket-here", dir);
        BucketException e = assertThrows(BucketException.class, () -> check(missing));
        assertEquals(BucketException.Kind.NO_BUCKET, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("bucket no-such-bucket-here does not exist"), e.getMessage());

        S3Settings wrongKey = good.withCredentials(StaticCredentialsProvider.create(AwsBasicCredentials.create(S3Server.IDENTITY, "wrong")));
        e = assertThrows(BucketException.class, () -> check(wrongKey));
        assertEquals(BucketException.Kind.DENIED, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("check the credentials"), e.getMessage());

        int closed;
        try (ServerSocket ss = new ServerSocket(0)) {
            closed = ss.getLocalPort();
        }
        S3Settings nowhere = good.withEndpoint(URI.create("http://127.0.0.1:" + closed)).withRequestTimeoutSeconds(2);
        e = assertThrows(BucketException.class, () -> check(nowhere));
        assertEquals(BucketException.Kind.UNREACHABLE, e.kind(), e.getMessage());
        assertTrue(e.getMessage().contains("cannot reach http://127.0.0.1:" + closed), e.getMessage());
        assertFalse(e.getMessage().contains("Exception"), e.getMessage());
    }

    private static void check(S3Settings s) throws BucketException {
        try (Bucket b = Bucket.open(s)) {
            b.check();
        }
    }

    @Test
    void faultsAreRetriedUntilEveryRequestSucceeds() throws Exception {
        S3Settings direct = TestBuckets.fresh("bucket-faults", dir);
        try (FaultProxy proxy = FaultProxy.start(S3Server.shared().port());
             Bucket b = Bucket.open(direct.withEndpoint(URI.create(proxy.endpoint())).withRequestTimeoutSeconds(2))) {
            proxy.plan(new FaultProxy.Plan(42, 0.3, Set.of(FaultProxy.Fault.values()), false, 40, 300, 4000));
            Random r = new Random(7);
            byte[][] objects = new byte[30][];
            for (int i = 0; i < objects.length; i++) {
                objects[i] = new byte[r.nextInt(300_000)];
                r.nextBytes(objects[i]);
                b.put("o/" + i, objects[i]);
            }
            for (int i = 0; i < objects.length; i++) {
                assertArrayEquals(objects[i], b.get("o/" + i).orElseThrow(), "object " + i);
                if (objects[i].length > 10) {
                    assertArrayEquals(java.util.Arrays.copyOfRange(objects[i], 3, 10), b.getRange("o/" + i, 3, 7));
                }
            }
            assertEquals(objects.length, b.list("o/").size());
            assertTrue(proxy.injectedTotal() >= 20, "faults injected: " + proxy.injected());
        }
    }

    @Test
    void aServerThatKeepsFailingFailsTheRequestWithOneLine() throws Exception {
        S3Settings direct = TestBuckets.fresh("bucket-refusing", dir);
        try (FaultProxy proxy = FaultProxy.start(S3Server.shared().port());
             Bucket b = Bucket.open(direct.withEndpoint(URI.create(proxy.endpoint())).withRequestTimeoutSeconds(2))) {
            b.put("before", new byte[] {9});
            proxy.refuseWrites(true);
            BucketException e = assertThrows(BucketException.class, () -> b.put("during", new byte[] {1}));
            assertTrue(e.getMessage().startsWith("write during: http://127.0.0.1:" + proxy.port() + " answered 503 SlowDown (tried 6 times)"), e.getMessage());
            assertArrayEquals(new byte[] {9}, b.get("before").orElseThrow(), "reads pass while writes are refused");
            proxy.refuseWrites(false);
            assertTrue(b.get("during").isEmpty());
        }
    }
}
