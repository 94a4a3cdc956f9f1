package io.gpdedup.protocol.concurrent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.security.GeneralSecurityException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class FuturesTest {
    @Test
    void resultComesBack() throws IOException {
        assertEquals("done", Futures.await(CompletableFuture.completedFuture("done"), "nothing"));
    }

    @Test
    void ioFailureIsThrownAsItIs() {
        IOException io = new IOException("disk full");
        IOException thrown = assertThrows(IOException.class, () -> Futures.await(CompletableFuture.failedFuture(io), "writing"));
        assertSame(io, thrown);
    }

    @Test
    void uncheckedFailureIsThrownAsItIs() {
        IllegalStateException bug = new IllegalStateException("bad state");
        FutureTask<Void> task = new FutureTask<>(() -> {
            throw bug;
        });
        task.run();
        assertSame(bug, assertThrows(IllegalStateException.class, () -> Futures.await(task, "running")));
        AssertionError error = new AssertionError("broken");
        assertSame(error, assertThrows(AssertionError.class, () -> Futures.await(CompletableFuture.failedFuture(error), "running")));
    }

    @Test
    void checkedFailureIsWrappedWithItsMessage() {
        GeneralSecurityException checked = new GeneralSecurityException("no such cipher");
        IOException thrown = assertThrows(IOException.class, () -> Futures.await(CompletableFuture.failedFuture(checked), "sealing"));
        assertEquals("no such cipher", thrown.getMessage());
        assertSame(checked, thrown.getCause());
    }

    @Test
    void wrappersAreTakenOffHoweverDeep() {
        IOException io = new IOException("lost");
        CompletableFuture<Void> f = CompletableFuture.failedFuture(new CompletionException(new CompletionException(io)));
        assertSame(io, assertThrows(IOException.class, () -> Futures.await(f, "reading")));
        // The control case: a wrapper without a cause is what failed, not taken off.
        CompletionException bare = new CompletionException("bare", null);
        assertSame(bare, Futures.cause(bare));
    }

    @Test
    void interruptKeepsTheFlagAndSaysWhatWasAwaited() {
        Thread.currentThread().interrupt();
        try {
            IOException thrown = assertThrows(IOException.class, () -> Futures.await(new CompletableFuture<Void>(), "loading the catalog"));
            assertEquals("interrupted while loading the catalog", thrown.getMessage());
            assertInstanceOf(InterruptedException.class, thrown.getCause());
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
        assertFalse(Thread.currentThread().isInterrupted());
    }

    @Test
    void callerMapsFailureAndInterruptItsOwnWay() {
        IOException io = new IOException("gone");
        UncheckedIOException mapped = assertThrows(UncheckedIOException.class, () -> Futures.await(CompletableFuture.failedFuture(io),
                c -> new UncheckedIOException((IOException) c), e -> new IllegalStateException(e)));
        assertSame(io, mapped.getCause());
        assertEquals(IOException.class, Futures.asIOException(new IllegalStateException("x")).getClass());
        assertSame(io, Futures.asIOException(io));
    }

    @Test
    void awaitAllWaitsForEveryOneThenThrowsTheFirstFailureInOrder() throws Exception {
        IOException first = new IOException("first");
        AtomicBoolean lastAsked = new AtomicBoolean();
        CompletableFuture<String> last = new CompletableFuture<>() {
            @Override
            public String get() throws InterruptedException, ExecutionException {
                lastAsked.set(true);
                return super.get();
            }
        };
        last.complete("d");
        List<CompletableFuture<String>> futures = List.of(CompletableFuture.completedFuture("a"), CompletableFuture.failedFuture(first),
                CompletableFuture.failedFuture(new IOException("second")), last);
        assertSame(first, assertThrows(IOException.class, () -> Futures.awaitAll(futures, Futures::asIOException, IOException::new)));
        assertTrue(lastAsked.get(), "a failure must not stop the wait for the futures after it");
        // The control case: nothing failed, every result in order.
        assertEquals(List.of("a", "b"), Futures.awaitAll(List.of(CompletableFuture.completedFuture("a"), CompletableFuture.completedFuture("b")),
                Futures::asIOException, IOException::new));
    }
}
