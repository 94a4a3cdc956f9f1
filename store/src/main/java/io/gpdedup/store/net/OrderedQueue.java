package io.gpdedup.store.net;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;

/**
 * Runs one connection's ordered requests one at a time, in submission order, on a shared
 * executor. A task is finished when the stage it returns completes (a commit: once durable), and
 * only then does the next one start; no thread waits meanwhile.
 */
final class OrderedQueue {
    private final Executor executor;
    private final ArrayDeque<Task> tasks = new ArrayDeque<>();
    private boolean running;

    private record Task(Supplier<? extends CompletionStage<?>> body, CompletableFuture<Void> done) implements Runnable {
        @Override
        public void run() {
            CompletionStage<?> stage;
            try {
                stage = body.get();
            } catch (RuntimeException | Error e) {
                stage = CompletableFuture.failedFuture(e);
            }
            stage.whenComplete((v, e) -> {
                if (e != null) {
                    done.completeExceptionally(e);
                } else {
                    done.complete(null);
                }
            });
        }
    }

    OrderedQueue(Executor executor) {
        this.executor = executor;
    }

    /** Queues {@code task}; the result completes as the task's stage does. */
    CompletableFuture<Void> submit(Supplier<? extends CompletionStage<?>> body) {
        Task task = new Task(body, new CompletableFuture<>());
        task.done.whenComplete((v, e) -> next());
        boolean start;
        synchronized (this) {
            tasks.add(task);
            start = !running;
            running = true;
        }
        if (start) {
            next();
        }
        return task.done;
    }

    /** Hands the next task to the executor (a fresh turn each time, so connections take turns). */
    private void next() {
        Task task;
        synchronized (this) {
            task = tasks.poll();
            if (task == null) {
                running = false;
                return;
            }
        }
        try {
            executor.execute(task);
        } catch (RejectedExecutionException e) {
            // The executor is gone (server stopped): this task, and after it every queued one, fails.
            task.done.completeExceptionally(e);
        }
    }
}
