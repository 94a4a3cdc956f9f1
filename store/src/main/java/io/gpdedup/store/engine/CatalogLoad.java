package io.gpdedup.store.engine;

import io.gpdedup.protocol.concurrent.Futures;
import io.gpdedup.store.recipe.RecipeCatalog;
import io.gpdedup.store.recipe.RecipeStore;
import java.io.IOException;
import java.util.concurrent.FutureTask;

/**
 * A unit's catalog loading on a thread of its own while the unit's index recovers: in a bucket
 * each is listings and GETs of its own, and a start waits for the longer of the two only.
 */
final class CatalogLoad {
    private final FutureTask<RecipeCatalog> task;
    private final Thread thread;

    private CatalogLoad(RecipeStore recipes) {
        this.task = new FutureTask<>(() -> RecipeCatalog.open(recipes));
        this.thread = new Thread(task, "gpdedup-catalog-load");
        thread.setDaemon(true);
    }

    static CatalogLoad start(RecipeStore recipes) {
        CatalogLoad l = new CatalogLoad(recipes);
        l.thread.start();
        return l;
    }

    /** The loaded catalog, or what failed its load. */
    RecipeCatalog await() throws IOException {
        return Futures.await(task, "loading the catalog");
    }

    /** Stops the load (the unit does not open) and returns once its thread has ended. */
    void abandon() {
        task.cancel(true);
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
