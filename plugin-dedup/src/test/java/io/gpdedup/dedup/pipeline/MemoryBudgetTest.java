package io.gpdedup.dedup.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpdedup.plugin.api.PluginException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class MemoryBudgetTest {
    private static final long MIB = 1 << 20;

    @Test
    void aStreamWhoseSharedShareIsTakenStillGetsItsOwnBatch() throws Exception {
        MemoryBudget budget = new MemoryBudget(100 * MIB, 16 * MIB, Duration.ofSeconds(30));
        try (MemoryBudget.Stream paused = budget.admit(0, MIB); MemoryBudget.Stream other = budget.admit(0, MIB)) {
            // The paused stream takes all it may of the shared area (a quarter), and its own batch.
            List<MemoryBudget.Reservation> held = new ArrayList<>();
            MemoryBudget.Reservation l;
            while ((l = paused.take(4 * MIB, false)) != null) {
                held.add(l);
            }
            assertEquals(2, held.size(), "one shared batch (a quarter of 16 MiB) and its own");
            // Three more paused streams fill the rest of the shared area.
            List<MemoryBudget.Stream> hogs = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                MemoryBudget.Stream hog = budget.admit(0, MIB);
                hogs.add(hog);
                while ((l = hog.take(4 * MIB, false)) != null) {
                    held.add(l);
                }
            }
            MemoryBudget.Reservation own = other.take(4 * MIB, true);
            assertTrue(own.own(), "with the shared area full the stream runs on its own batch");
            assertNull(other.take(4 * MIB, false), "one own batch at a time");
            CompletableFuture<MemoryBudget.Reservation> next = later(() -> other.take(4 * MIB, true));
            Thread.sleep(100);
            assertFalse(next.isDone(), "waits for its own batch");
            own.close();
            assertTrue(next.get(10, TimeUnit.SECONDS).own(), "its own batch came back to it");
            next.get().close();
            held.forEach(MemoryBudget.Reservation::close);
            hogs.forEach(MemoryBudget.Stream::close);
        }
        assertEquals(0, budget.used());
        assertEquals(0, budget.streams());
    }

    @Test
    void streamsBeyondTheAreaQueueInOrderAndTimeOutAlone() throws Exception {
        MemoryBudget budget = new MemoryBudget(10 * MIB, 0, Duration.ofMillis(300));
        MemoryBudget.Stream a = budget.admit(MIB, 4 * MIB);
        MemoryBudget.Stream b = budget.admit(MIB, 4 * MIB);
        PluginException e = assertThrows(PluginException.class, () -> budget.admit(MIB, 4 * MIB));
        assertTrue(e.getMessage().startsWith("no memory for another stream after waiting 300 ms: 2 streams in progress"), e.getMessage());
        assertEquals(0, budget.waiting());

        MemoryBudget patient = new MemoryBudget(10 * MIB, 0, Duration.ofSeconds(30));
        MemoryBudget.Stream first = patient.admit(0, 6 * MIB);
        CompletableFuture<MemoryBudget.Stream> big = later(() -> patient.admit(0, 6 * MIB));
        awaitWaiting(patient, 1);
        CompletableFuture<MemoryBudget.Stream> small = later(() -> patient.admit(0, MIB));
        awaitWaiting(patient, 2);
        Thread.sleep(100);
        assertFalse(small.isDone(), "a small stream does not overtake a larger one queued before it");
        first.close();
        MemoryBudget.Stream second = big.get(10, TimeUnit.SECONDS);
        assertNotNull(small.get(10, TimeUnit.SECONDS));
        second.close();
        small.get().close();
        a.close();
        b.close();
        assertEquals(0, patient.used());
        assertEquals(0, budget.used());
    }

    @Test
    void retainedBytesAreCountedInTheSharedAreaUpToAShareAndGivenBackByTheClose() throws Exception {
        MemoryBudget budget = new MemoryBudget(10 * MIB, 16 * MIB, Duration.ofSeconds(30));
        MemoryBudget.Stream s = budget.admit(0, MIB);
        assertTrue(s.takeRetained(3 * MIB));
        assertFalse(s.takeRetained(2 * MIB), "past a quarter of the shared area");
        assertTrue(s.takeRetained(MIB));
        assertEquals(4 * MIB, s.retained());
        assertEquals(5 * MIB, budget.used());
        // Beside its retained bytes the stream still takes shared batches up to its share.
        MemoryBudget.Reservation batch = s.take(4 * MIB, false);
        assertFalse(batch.own());
        s.giveBackRetained(MIB);
        assertEquals(3 * MIB, s.retained());
        batch.close();
        s.close();
        assertEquals(0, budget.used(), "the close gave back what was still retained");
        s.giveBackRetained(3 * MIB);
        assertEquals(0, budget.used(), "nothing is given back twice");
        assertFalse(s.takeRetained(1), "a closed stream retains nothing");
    }

    @Test
    void aClosedStreamKeepsItsAllowanceUntilItsOwnBatchHasEnded() throws Exception {
        MemoryBudget budget = new MemoryBudget(10 * MIB, 0, Duration.ofSeconds(30));
        MemoryBudget.Stream s = budget.admit(MIB, 2 * MIB);
        MemoryBudget.Reservation own = s.take(4 * MIB, true);
        s.close();
        assertEquals(3 * MIB, budget.used(), "a fetch still in flight holds its memory");
        own.close();
        own.close();
        assertEquals(0, budget.used());
        assertEquals(0, budget.streams());
    }

    @Test
    void aStreamLargerThanTheAreaRunsAlone() throws Exception {
        MemoryBudget budget = new MemoryBudget(MIB, 0, Duration.ofMillis(200));
        try (MemoryBudget.Stream s = budget.admit(0, 8 * MIB)) {
            assertEquals(1, budget.streams());
            assertThrows(PluginException.class, () -> budget.admit(0, 1));
        }
    }

    @Test
    void theHeapBudgetIsHalfTheHeap() {
        MemoryBudget b = MemoryBudget.ofHeap(1024 * MIB);
        assertEquals(320 * MIB, b.streamsArea());
        assertEquals(192 * MIB, b.sharedArea());
        assertEquals(48 * MIB, b.shareLimit());
    }

    private interface Blocking<T> {
        T get() throws java.io.IOException;
    }

    /** Runs a call that may block on another thread. */
    private static <T> CompletableFuture<T> later(Blocking<T> call) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return call.get();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
    }

    private static void awaitWaiting(MemoryBudget budget, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (budget.waiting() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(n, budget.waiting());
    }
}
