package io.gpdedup.client;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;

/** What failed inside a future, for the client, the plugin and the server alike. */
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
}
