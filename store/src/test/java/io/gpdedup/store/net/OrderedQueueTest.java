package io.gpdedup.store.net;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OrderedQueueTest {

    @Test
    void tasksRunOneAtATimeInOrderEvenWhenTheyFinishLater() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            OrderedQueue q = new OrderedQueue(pool);
            List<Integer> order = Collections.synchronizedList(new ArrayList<>());
            AtomicInteger running = new AtomicInteger();
            AtomicInteger maxRunning = new AtomicInteger();
            CompletableFuture<Void> gate = new CompletableFuture<>();
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                int n = i;
                done.add(q.submit(() -> {
                    maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                    order.add(n);
                    // Task 0 finishes only when the gate opens: nothing may start before.
                    CompletableFuture<Void> finish = n == 0 ? gate : CompletableFuture.completedFuture(null);
                    return finish.whenComplete((v, e) -> running.decrementAndGet());
                }));
            }
            Thread.sleep(50);
            assertEquals(List.of(0), order, "task 1 waits for task 0's stage");
            gate.complete(null);
            CompletableFuture.allOf(done.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
            List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < 200; i++) {
                expected.add(i);
            }
            assertEquals(expected, order);
            assertEquals(1, maxRunning.get());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aFailingTaskFailsItsFutureOnlyAndAStoppedExecutorFailsTheRest() throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        OrderedQueue q = new OrderedQueue(pool);
        CompletableFuture<Void> bad = q.submit(() -> {
            throw new IllegalStateException("boom");
        });
        CompletableFuture<Void> good = q.submit(() -> CompletableFuture.completedFuture(null));
        good.get(10, TimeUnit.SECONDS);
        assertTrue(bad.isCompletedExceptionally());
        pool.shutdown();
        assertTrue(pool.awaitTermination(10, TimeUnit.SECONDS));
        CompletableFuture<Void> late = q.submit(() -> CompletableFuture.completedFuture(null));
        assertTrue(late.isCompletedExceptionally());
        assertFalse(late.isCancelled());
        assertTrue(late.handle((v, e) -> e instanceof RejectedExecutionException).get());
    }
}
