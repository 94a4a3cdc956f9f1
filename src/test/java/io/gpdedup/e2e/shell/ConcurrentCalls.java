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

    /** Runs every task at once (one thread each) and returns results in task order. */
    public static <T> List<T> all(List<Callable<T>> tasks) {
        ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, tasks.size()));
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (Callable<T> t : tasks) {
                futures.add(pool.submit(t));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> f : futures) {
                results.add(f.get());
            }
            return results;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AssertionError a) {
                throw a;
            }
            throw new AssertionError("concurrent plugin call failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
