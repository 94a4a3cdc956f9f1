package io.gpdedup.store.index;

import java.lang.management.ManagementFactory;
import java.util.Random;

/**
 * Measures the heap the index really takes (not only what it estimates) at N chunks:
 * {@code java -cp <test-classes>:<classes> io.gpdedup.store.index.IndexFootprint 1000000}.
 */
public final class IndexFootprint {
    private IndexFootprint() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1_000_000;
        Random r = new Random(7);
        long before = usedAfterGc();
        ChunkIndex index = new ChunkIndex();
        for (int i = 0; i < n; i++) {
            index.insert(ChunkIndexTest.random(r), 1 + i / 256, (i % 256) * 262_193L, 262_193);
        }
        long after = usedAfterGc();
        System.out.printf("chunks=%d estimate=%d bytes (%.1f/chunk) measured heap delta=%d bytes (%.1f/chunk)%n",
                index.size(), index.memoryBytes(), (double) index.memoryBytes() / n, after - before, (double) (after - before) / n);
    }

    private static long usedAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
