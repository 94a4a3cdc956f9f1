package io.gpdedup.store.engine;

import io.gpdedup.protocol.codec.Codec;
import io.gpdedup.store.s3.BucketException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Random;
import java.util.Set;

/**
 * Child process for {@link KillNineTest}: backs up, deletes and collects garbage in a loop,
 * printing each acknowledged commit and deletion, until it is killed.
 */
public final class CrashWriter {
    private CrashWriter() {
    }

    static String objectName(int round, int i) {
        return "r" + round + "/obj" + i;
    }

    /** The content of an object is a function of its name, so the parent can check it after the crash. */
    static byte[] content(String name) {
        Random r = new Random(name.hashCode());
        byte[] out = new byte[8 * 4096];
        for (int i = 0; i < 8; i++) {
            // blocks from a shared pool of 32, so objects deduplicate against each other
            System.arraycopy(TestObjects.data(r.nextInt(32), 4096, false), 0, out, i * 4096, 4096);
        }
        return out;
    }

    static final EngineSettings SETTINGS = EngineSettings.defaults().withContainerSizeBytes(32 << 10).withGcLiveRatio(0.9);

    /** Arguments: data directory, round; for the S3 backend also the endpoint and the bucket of the test's S3 server. */
    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        int round = Integer.parseInt(args[1]);
        DedupStoreEngine engine = args.length > 2
                ? DedupStoreEngine.open(dir, SETTINGS, io.gpdedup.store.s3.S3Backend.factory(KillNineTest.s3(java.net.URI.create(args[2]), args[3], dir)))
                : DedupStoreEngine.open(dir, SETTINGS);
        StorageUnit unit = engine.unit("u1");
        System.out.println("OPEN");
        System.out.flush();
        Set<String> committed = new HashSet<>();
        for (int i = 0; ; i++) {
            String name = objectName(round, i);
            try {
                TestObjects.backup(unit, name, content(name), 4096, Codec.ZSTD);
            } catch (RuntimeException e) {
                refusedByBucket(e);
                continue;
            }
            committed.add(name);
            System.out.println("COMMITTED " + name);
            String victim = objectName(round, i - 1);
            if (i % 3 == 2 && committed.contains(victim)) {
                // announced first: a kill between the delete and its acknowledgement may leave it
                // done without the parent having heard of it
                System.out.println("DELETING " + victim);
                System.out.flush();
                try {
                    unit.deleteObject(victim); // exact: a prefix would also take obj20.. with obj2
                    System.out.println("DELETED " + victim);
                    unit.collectGarbage();
                } catch (RuntimeException e) {
                    refusedByBucket(e);
                }
            }
            System.out.flush();
        }
    }

    /**
     * A write the bucket refused is not acknowledged, so there is nothing to check after the kill: on
     * a loaded machine the lease's renewal can miss its window, and the store then refuses writes
     * until it is renewed. Anything else is a failure of the test.
     */
    private static void refusedByBucket(RuntimeException e) throws InterruptedException {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof BucketException) {
                System.out.println("REFUSED " + t.getMessage());
                System.out.flush();
                Thread.sleep(200);
                return;
            }
        }
        throw e;
    }
}
