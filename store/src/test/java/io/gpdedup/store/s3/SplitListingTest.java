package io.gpdedup.store.s3;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** A listing split by the next character of its keys, against a real S3 server (S3Proxy, 1,000 keys a page). */
@Timeout(300)
class SplitListingTest {
    @TempDir
    Path dir;

    @Test
    void listsMoreThanAPageOfContainerKeysAsTheSequentialListingDoes() throws Exception {
        try (Bucket b = Bucket.open(TestBuckets.fresh("split-list", dir))) {
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<String>> puts = new ArrayList<>();
                for (int id = 995; id < 2_300; id += 2) { // ids across a change of the leading digits, 1,306 keys
                    int i = id;
                    puts.add(pool.submit(() -> b.put("c/" + String.format("%08d", i) + ".ctr", new byte[] {1})));
                    puts.add(pool.submit(() -> b.put("c/" + String.format("%08d", i) + ".idx", new byte[] {2, 3})));
                }
                puts.add(pool.submit(() -> b.put("c/notes.txt", new byte[] {4}))); // not a container's key: may be left out
                for (Future<String> f : puts) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            List<Bucket.Listed> sequential = b.list("c/");
            assertEquals(1_307, sequential.size(), "the control: more than one page");
            List<Bucket.Listed> split = SplitListing.list(b, "c/", UnitKeys.CONTAINER_KEY_CHARS);
            List<Bucket.Listed> expected = sequential.stream().filter(o -> !o.key().equals("c/notes.txt")).toList();
            assertEquals(expected, split);
            assertFalse(split.stream().anyMatch(o -> o.key().endsWith(".txt")));
        }
    }
}
