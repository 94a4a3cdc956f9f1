package io.gpdedup.e2e.shell;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A started plugin call. stdout and stderr are drained on background threads from the start, so a
 * plugin never blocks on a full pipe while the test writes stdin.
 */
public final class RunningCall {
    /** Guard against hangs only; no test asserts on elapsed time. */
    static final long LIMIT_SECONDS = 300;
    private static final int CAPTURE_LIMIT = 64 << 20;
    private static final ExecutorService PUMPS = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "plugin-pipe");
        t.setDaemon(true);
        return t;
    });

    private final String commandLine;
    private final Process process;
    private final CountingSink stdout;
    private final ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    private final CompletableFuture<Void> stdoutDone;
    private final CompletableFuture<Void> stderrDone;
    private String stdinError;

    RunningCall(String commandLine, Process process, OutputStream stdoutSink) {
        this.commandLine = commandLine;
        this.process = process;
        this.stdout = new CountingSink(stdoutSink == null ? new ByteArrayOutputStream() : stdoutSink, stdoutSink == null);
        this.stdoutDone = CompletableFuture.runAsync(() -> pump(process.getInputStream(), stdout), PUMPS);
        this.stderrDone = CompletableFuture.runAsync(() -> pump(process.getErrorStream(), stderr), PUMPS);
    }

    public String commandLine() {
        return commandLine;
    }

    /** The process bash became: {@code bash -c} with one simple command execs it in place. */
    public ProcessHandle handle() {
        return process.toHandle();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The plugin's stdin; closing it is the end of the stream. */
    public OutputStream stdin() {
        return process.getOutputStream();
    }

    /** SIGKILL, as when a segment host loses power or the OOM killer strikes. */
    public void kill() {
        process.destroyForcibly();
    }

    /** Waits for the process to end by itself (e.g. after a signal) with stdin still open. */
    public void awaitExit() {
        try {
            if (!process.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("plugin did not exit within " + LIMIT_SECONDS + " s: " + commandLine);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new AssertionError("interrupted waiting for " + commandLine, e);
        }
    }

    /** Feeds {@code in} (if any), closes stdin and waits for exit and for both output pipes to drain. */
    public CallResult finish(InputStream in) {
        try (OutputStream o = process.getOutputStream()) {
            if (in != null) {
                in.transferTo(o);
            }
        } catch (IOException e) {
            // The plugin stopped reading (it exited, e.g. on bad arguments): its exit code tells.
            stdinError = e.getMessage();
        }
        try {
            if (!process.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("plugin call did not finish within " + LIMIT_SECONDS + " s: " + commandLine);
            }
            stdoutDone.get(LIMIT_SECONDS, TimeUnit.SECONDS);
            stderrDone.get(LIMIT_SECONDS, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new AssertionError("interrupted waiting for " + commandLine, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("output of " + commandLine + " could not be read", e);
        }
        byte[] captured = stdout.captured();
        return new CallResult(commandLine, process.exitValue(), captured, stdout.count(), stderr.toString(java.nio.charset.StandardCharsets.UTF_8),
                stdinError);
    }

    private static void pump(InputStream from, OutputStream to) {
        byte[] buf = new byte[1 << 16];
        try (InputStream in = from) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                to.write(buf, 0, n);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Counts every stdout byte; keeps a copy only when capturing, and only up to a bound. */
    private static final class CountingSink extends OutputStream {
        private final OutputStream target;
        private final boolean capturing;
        private long count;

        CountingSink(OutputStream target, boolean capturing) {
            this.target = target;
            this.capturing = capturing;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] b, int off, int len) throws IOException {
            if (!capturing || count + len <= CAPTURE_LIMIT) {
                target.write(b, off, len);
            }
            count += len;
        }

        long count() {
            return count;
        }

        byte[] captured() {
            if (!capturing) {
                return null;
            }
            if (count > CAPTURE_LIMIT) {
                throw new AssertionError("plugin wrote " + count + " bytes to stdout, more than the suite captures; stream it instead");
            }
            return ((ByteArrayOutputStream) target).toByteArray();
        }
    }
}
