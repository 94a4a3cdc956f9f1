package io.gpdedup.plugin.agent;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;

/** Runs one accepted call. Implementations are shared by all concurrent calls. */
interface CallHandler {
    /**
     * @return the exit status for the caller; {@code out} is flushed by the handler on success only
     */
    int handle(CallRequest call, InputStream in, OutputStream out, PrintStream err);
}
