package io.gpdedup.store.engine;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.protocol.model.Recipe;
import io.gpdedup.protocol.model.RetentionLock;
import io.gpdedup.store.recipe.RecipeCatalog;
import io.gpdedup.store.recipe.RecipeStore;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;

/**
 * The unit's syncer: one thread that takes every commit waiting, makes every container they need
 * durable once (fsyncs, or uploads and their index objects), writes the recipes in parallel,
 * publishes them together, and only then completes the futures. A commit is never acknowledged
 * before it is durable.
 */
final class GroupCommitter implements AutoCloseable {
    /**
     * A commit, or with no name a sync: durability of every chunk appended before it, nothing to
     * publish; {@code uploaded}: as durable as a commit, not only kept for a reconnect.
     */
    private record Pending(String name, Recipe recipe, CommitPolicy policy, boolean uploaded, CompletableFuture<Void> future) {
        boolean isSync() {
            return name == null;
        }

        boolean forReconnectOnly() {
            return isSync() && !uploaded;
        }
    }

    /** Keeps what a locked commit references at least as long as its lock (docs/s3.md, Object Lock). */
    @FunctionalInterface
    interface Retainer {
        void retain(Recipe recipe, RetentionLock lock) throws IOException;
    }

    private static final int STAGERS = 4;

    private final String unitName;
    private final ContainerStore containers;
    private final RecipeCatalog catalog;
    private final Runnable afterBatch;
    private final Retainer retainer;
    private final Thread thread;
    private final ExecutorService stagers;
    private final List<Pending> queue = new ArrayList<>(); // guarded by this
    private boolean stopping; // guarded by this
    private long batches; // guarded by this
    private long commits; // guarded by this

    /**
     * {@code afterBatch} runs on the syncer's thread after each batch (the unit's periodic index
     * save); {@code retainer} before the recipe of each locked commit is written.
     */
    GroupCommitter(String unitName, ContainerStore containers, RecipeCatalog catalog, Runnable afterBatch, Retainer retainer) {
        this.unitName = unitName;
        this.containers = containers;
        this.catalog = catalog;
        this.afterBatch = afterBatch;
        this.retainer = retainer;
        this.stagers = Executors.newFixedThreadPool(STAGERS, r -> {
            Thread t = new Thread(r, "gpdedup-recipe-writer-" + unitName);
            t.setDaemon(true);
            return t;
        });
        this.thread = new Thread(this::run, "gpdedup-commit-" + unitName);
        thread.setDaemon(true);
        thread.start();
    }

    CompletableFuture<Void> submit(String name, Recipe recipe, CommitPolicy policy) {
        return enqueue(name, recipe, policy, false);
    }

    /**
     * Completes once every chunk appended before this call is kept for a reconnect ({@link
     * ContainerStore#keepForReconnect}; on local disk: fsynced), or with {@code uploaded} as
     * durable as for a commit ({@link ContainerStore#makeDurable}): batches run one at a time, so
     * one that started earlier has finished.
     */
    CompletableFuture<Void> sync(boolean uploaded) {
        return enqueue(null, null, null, uploaded);
    }

    private CompletableFuture<Void> enqueue(String name, Recipe recipe, CommitPolicy policy, boolean uploaded) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        synchronized (this) {
            if (stopping) {
                f.completeExceptionally(new StoreException("storage unit " + unitName + " is closing"));
                return f;
            }
            queue.add(new Pending(name, recipe, policy, uploaded, f));
            notifyAll();
        }
        return f;
    }

    /** Batches run so far and commits they carried: how much grouping happened. */
    synchronized long[] counters() {
        return new long[] {batches, commits};
    }

    private void run() {
        while (true) {
            List<Pending> batch;
            synchronized (this) {
                while (queue.isEmpty() && !stopping) {
                    try {
                        wait();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        stopping = true;
                    }
                }
                if (queue.isEmpty()) {
                    return;
                }
                batch = new ArrayList<>(queue);
                queue.clear();
                batches++;
                commits += batch.stream().filter(p -> !p.isSync()).count();
            }
            commitBatch(batch);
            afterBatch.run();
        }
    }

    private void commitBatch(List<Pending> waiting) {
        // After the batch was taken: every chunk a commit (or sync) in it references was appended
        // before it was queued.
        try {
            if (waiting.stream().allMatch(Pending::forReconnectOnly)) {
                containers.keepForReconnect();
            } else {
                containers.makeDurable();
            }
        } catch (IOException | RuntimeException e) {
            for (Pending p : waiting) {
                p.future().completeExceptionally(new StoreException("cannot make chunks durable in unit " + unitName + ": "
                        + (e.getMessage() != null ? e.getMessage() : e.toString()), e));
            }
            return;
        }
        waiting.stream().filter(Pending::isSync).forEach(p -> p.future().complete(null));
        long now = System.currentTimeMillis();
        List<Pending> batch = retained(waiting.stream().filter(p -> !p.isSync()).toList(), now);
        if (batch.isEmpty()) {
            return;
        }
        List<RecipeStore.Staged> staged = new ArrayList<>();
        List<Pending> ready = new ArrayList<>();
        // Each recipe needs its own fsync (or PUT); issued in parallel, a file system folds them
        // into few journal commits, and a bucket takes them at once.
        List<Future<RecipeStore.Staged>> writes = new ArrayList<>();
        for (Pending p : batch) {
            Callable<RecipeStore.Staged> write = () -> catalog.stage(p.name(), now, p.recipe(), p.policy().lockAt(now));
            writes.add(batch.size() == 1 ? completed(write) : stagers.submit(write));
        }
        for (int i = 0; i < batch.size(); i++) {
            Pending p = batch.get(i);
            try {
                staged.add(Futures.await(writes.get(i), cause -> new StoreException("cannot write the recipe of " + p.name() + ": " + describe(cause), cause),
                        e -> new StoreException("interrupted while writing the recipe of " + p.name(), e)));
                ready.add(p);
            } catch (StoreException e) {
                p.future().completeExceptionally(e);
            }
        }
        if (staged.isEmpty()) {
            return;
        }
        try {
            catalog.publish(staged);
        } catch (IOException | RuntimeException e) {
            for (RecipeStore.Staged s : staged) {
                catalog.discard(s);
            }
            for (Pending p : ready) {
                p.future().completeExceptionally(new StoreException("cannot publish the recipe of " + p.name() + ": " + describe(e), e));
            }
            return;
        }
        for (Pending p : ready) {
            p.future().complete(null);
        }
    }

    /**
     * The commits whose chunks are held at least as long as their locks; the others fail here,
     * before their recipes exist: a locked object whose chunks could go before it is never acknowledged.
     */
    private List<Pending> retained(List<Pending> batch, long now) {
        List<Pending> out = new ArrayList<>();
        for (Pending p : batch) {
            RetentionLock lock = p.policy().lockAt(now);
            if (lock.mode() != RetentionLock.Mode.NONE) {
                try {
                    retainer.retain(p.recipe(), lock);
                } catch (IOException | RuntimeException e) {
                    p.future().completeExceptionally(new StoreException("cannot lock the chunks of " + p.name() + " in unit " + unitName
                            + " until " + java.time.Instant.ofEpochMilli(lock.untilMillis()) + ": "
                            + (e.getMessage() != null ? e.getMessage() : e.toString()), e));
                    continue;
                }
            }
            out.add(p);
        }
        return out;
    }

    private static <T> Future<T> completed(Callable<T> task) {
        FutureTask<T> f = new FutureTask<>(task);
        f.run();
        return f;
    }

    /** Finishes every commit already submitted, then stops the thread. */
    @Override
    public void close() {
        synchronized (this) {
            stopping = true;
            notifyAll();
        }
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        stagers.shutdown();
    }

    /** A failure's own message, fit for the client: never the class name of an exception that has one. */
    private static String describe(Throwable e) {
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }
}
