package io.gpdedup.store.s3;

import io.gpdedup.protocol.concurrent.Futures;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * A listing of many keys as many small listings at once. S3 returns a listing 1,000 keys a page,
 * each page asked for after the previous one; 50,000 containers and index objects are 50 requests
 * in turn (and S3Proxy's filesystem backend reads every key under the prefix for each page). Here
 * a prefix whose first page is not the whole of it, nor most of it, is split by the next
 * character of its keys, and the parts beyond that page are listed in parallel, split again as
 * needed. Complete only for keys whose
 * characters after the prefix all come from {@code alphabet}, which the caller ensures: a unit's
 * containers are named by their id's digits, a dot and a suffix, and nothing else there counts.
 */
final class SplitListing {
    private static final int LISTERS = 8;
    /** Characters beyond the prefix after which a part is paged through instead of split further. */
    private static final int MAX_DEPTH = 12;

    /** A part of the prefix still to list, after key {@code after} unless that is null. */
    private record Split(String prefix, String after) {
    }

    private record Part(List<Bucket.Listed> objects, List<Split> split) {
    }

    /** A part whose first page got past this many of its own parts is paged through, not split. */
    private static final int SMALL = 3;

    private SplitListing() {
    }

    /** Every object under {@code keyPrefix} whose key goes on in {@code alphabet}, in key order; others may be left out. */
    static List<Bucket.Listed> list(Bucket bucket, String keyPrefix, String alphabet) throws IOException {
        ExecutorService pool = Executors.newFixedThreadPool(LISTERS, r -> {
            Thread t = new Thread(r, "gpdedup-s3-list");
            t.setDaemon(true);
            return t;
        });
        try {
            CompletionService<Part> parts = new ExecutorCompletionService<>(pool);
            List<Bucket.Listed> out = new ArrayList<>();
            parts.submit(() -> listPart(bucket, keyPrefix, null, keyPrefix.length(), alphabet));
            int pending = 1;
            while (pending > 0) {
                Part p = Futures.await(parts.take(), Futures::asIOException, e -> new IOException("interrupted while listing " + keyPrefix, e));
                pending--;
                out.addAll(p.objects());
                for (Split sub : p.split()) {
                    parts.submit(() -> listPart(bucket, sub.prefix(), sub.after(), keyPrefix.length(), alphabet));
                    pending++;
                }
            }
            out.sort(Comparator.comparing(Bucket.Listed::key));
            return out;
        } catch (InterruptedException e) {
            // Waiting for the next part to end, not for its result.
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while listing " + keyPrefix, e);
        } finally {
            pool.shutdownNow();
        }
    }

    private static Part listPart(Bucket bucket, String prefix, String after, int base, String alphabet) throws BucketException {
        Bucket.Page first = bucket.listPage(prefix, null, after);
        if (first.next() == null) {
            return new Part(first.objects(), List.of());
        }
        // The first page holds every key up to its last: the parts of the prefix whose next character comes
        // before the last key's are all in it, and the part of that character up to that key.
        String last = first.objects().get(first.objects().size() - 1).key();
        char at = last.length() > prefix.length() ? last.charAt(prefix.length()) : Character.MAX_VALUE;
        long covered = alphabet.chars().filter(c -> c < at).count();
        if (covered < SMALL && at != Character.MAX_VALUE && prefix.length() - base < MAX_DEPTH) {
            List<Split> split = new ArrayList<>();
            for (char c : alphabet.toCharArray()) {
                if (c == at) {
                    split.add(new Split(prefix + c, last));
                } else if (c > at) {
                    split.add(new Split(prefix + c, null));
                }
            }
            return new Part(first.objects(), split);
        }
        // Small enough: the first page reached that far into it; the rest is a few pages.
        List<Bucket.Listed> all = new ArrayList<>(first.objects());
        for (String token = first.next(); token != null; ) {
            Bucket.Page p = bucket.listPage(prefix, token);
            all.addAll(p.objects());
            token = p.next();
        }
        return new Part(all, List.of());
    }
}
