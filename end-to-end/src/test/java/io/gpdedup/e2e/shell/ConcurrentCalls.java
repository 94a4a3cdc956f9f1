package io.gpdedup.e2e.shell;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs plugin calls at the same time, as gpbackup fans a command out to every segment. */
public final class ConcurrentCalls {
    private ConcurrentCalls() {
    }

    /**
     * Runs every task at once (one thread each) and returns results in task order. Waits for all of
     * them even when one fails, so no plugin process outlives the test that started it.
     */
    public static <T> List<T> all(List<Callable<T>> tasks) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, tasks.size()));
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> t : tasks) {
                futures.add(pool.submit(t));
            }
            List<T> results = new ArrayList<>();
            Throwable first = null;
            for (Future<T> f : futures) {
                try {
                    results.add(f.get());
                } catch (ExecutionException e) {
                    first = first == null ? e.getCause() : first;
                }
            }
            if (first instanceof AssertionError a) {
                throw a;
            }
            if (first != null) {
                throw new AssertionError("concurrent plugin call failed: " + first, first);
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } finally {
            pool.shutdown();
        }
    }
}
