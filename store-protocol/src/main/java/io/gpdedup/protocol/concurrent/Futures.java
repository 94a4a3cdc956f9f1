package io.gpdedup.protocol.concurrent;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Waiting for a future and getting at what failed inside it: the one place that does it for the
 * client, the plugins, the store and the harness, so that a wait reports what actually went wrong,
 * not the wrapper a future put around it, and an interrupt is never swallowed.
 */
public final class Futures {
    private Futures() {
    }

    /**
     * The failure under the wrappers a future adds ({@link CompletionException}, {@link ExecutionException}),
     * however deeply nested, so that callers act on, and report, what actually went wrong.
     */
    public static Throwable cause(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /**
     * The result of {@code future}. Its failure is thrown as it is when an {@link IOException},
     * {@link RuntimeException} or {@link Error}, and as an IOException with its message otherwise. An
     * interrupt keeps the thread's interrupt flag set and is thrown as an IOException "interrupted
     * while {@code waitingFor}".
     */
    public static <T> T await(Future<T> future, String waitingFor) throws IOException {
        return await(future, Futures::rethrowUnchecked, e -> new IOException("interrupted while " + waitingFor, e));
    }

    /**
     * The result of {@code future}, for a caller that reports failures its own way: what failed
     * ({@link #cause}) is thrown as {@code failed} makes it; an interrupt keeps the thread's interrupt
     * flag set and is thrown as {@code interrupted} makes it.
     */
    public static <T, E extends Exception> T await(Future<T> future, Function<Throwable, ? extends E> failed,
            Function<InterruptedException, ? extends E> interrupted) throws E {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw interrupted.apply(e);
        } catch (ExecutionException e) {
            throw failed.apply(cause(e));
        }
    }

    /**
     * The results of {@code futures}, in order, once every one has ended: a failure does not stop the
     * wait for the others (what they hold is not let go of while they run), and the first one, in
     * list order, is then thrown as {@code failed} makes it. An interrupt stops the wait at once, as
     * in {@link #await(Future, Function, Function)}.
     */
    public static <T, E extends Exception> List<T> awaitAll(List<? extends Future<? extends T>> futures, Function<Throwable, ? extends E> failed,
            Function<InterruptedException, ? extends E> interrupted) throws E {
        List<T> results = new ArrayList<>(futures.size());
        Throwable first = null;
        for (Future<? extends T> f : futures) {
            try {
                results.add(f.get());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw interrupted.apply(e);
            } catch (ExecutionException e) {
                first = first != null ? first : cause(e);
                results.add(null);
            }
        }
        if (first != null) {
            throw failed.apply(first);
        }
        return results;
    }

    /** {@code cause} itself when an IOException, else an IOException with its message: for callers that report every failure as one. */
    public static IOException asIOException(Throwable cause) {
        return cause instanceof IOException io ? io : new IOException(String.valueOf(cause.getMessage()), cause);
    }

    /** Throws {@code cause} as it is when it is unchecked; otherwise returns it as an IOException. */
    private static IOException rethrowUnchecked(Throwable cause) {
        if (cause instanceof RuntimeException r) {
            throw r;
        }
        if (cause instanceof Error e) {
            throw e;
        }
        return asIOException(cause);
    }
}
