package io.gpdedup.plugin.agent;

import java.io.Closeable;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The caller's own stdin and stdout, opened by the agent through {@code /proc/<pid>/fd} so that a
 * call's data goes straight between the caller's pipe (or stdin file) and the agent, instead of
 * being copied by the launcher through the socket: one copy in place of three per byte.
 *
 * <p>Only what cannot block or change meaning is opened this way: anonymous pipes (a named FIFO's
 * open would wait for a partner) and, for stdin, a regular file read from the launcher's offset.
 * The launcher says what its descriptors are (the {@code stdio} flags of the CALL); the agent checks
 * again itself. Anything that fails to open falls back to the relay.
 *
 * <p>A pipe does not tell the agent when the launcher dies, so while a channel is open the caller is
 * watched: once its process is gone (or a zombie, or another process under its pid) the channels are
 * closed, which fails a blocked read or write, and the call commits nothing.
 */
final class CallerStdio implements Closeable {
    static final int STDIN_PIPE = 1;
    static final int STDIN_FILE = 2;
    static final int STDOUT_PIPE = 4;
    /** The launcher found its stdin closed and put /dev/null there (docs/agent.md). */
    static final int STDIN_CLOSED = 8;
    static final int STDOUT_CLOSED = 16;

    private static final long WATCH_MILLIS = 200;
    private static final ScheduledExecutorService WATCH = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "caller-watch");
        t.setDaemon(true);
        return t;
    });

    private final long pid;
    private final int flags;
    private final long stdinOffset;
    private String startTime; // of the caller, read at the first open
    private final List<FileChannel> open = new ArrayList<>();
    private ScheduledFuture<?> watch;
    private volatile boolean callerGone;

    CallerStdio(CallRequest call) {
        this.pid = call.callerPid();
        this.flags = call.stdio();
        this.stdinOffset = call.stdinOffset();
    }

    boolean stdinClosed() {
        return (flags & STDIN_CLOSED) != 0;
    }

    boolean stdoutClosed() {
        return (flags & STDOUT_CLOSED) != 0;
    }

    /** The caller's stdin to read directly, positioned where the caller's was; null: use the relay. */
    FileChannel openStdin() {
        if ((flags & STDIN_PIPE) != 0) {
            return open(0, StandardOpenOption.READ);
        }
        if ((flags & STDIN_FILE) != 0) {
            FileChannel c = open(0, StandardOpenOption.READ);
            if (c != null) {
                try {
                    c.position(stdinOffset);
                } catch (IOException e) {
                    release(c);
                    return null;
                }
            }
            return c;
        }
        return null;
    }

    /** The caller's stdout pipe to write directly; null: use the relay. */
    FileChannel openStdout() {
        return (flags & STDOUT_PIPE) != 0 ? open(1, StandardOpenOption.WRITE) : null;
    }

    /** True once the watch found the caller gone; a failed read or write should then say so. */
    boolean callerGone() {
        return callerGone;
    }

    /** Closes a channel before the call's end, e.g. stdin at its end of file. */
    synchronized void release(FileChannel c) {
        open.remove(c);
        closeQuietly(c);
    }

    @Override
    public synchronized void close() {
        if (watch != null) {
            watch.cancel(false);
        }
        open.forEach(CallerStdio::closeQuietly);
        open.clear();
    }

    private synchronized FileChannel open(int fd, StandardOpenOption mode) {
        if (flags == 0 || callerGone) {
            return null;
        }
        if (startTime == null) {
            startTime = startTime(pid);
            if (startTime == null) {
                return null;
            }
        }
        Path link = Path.of("/proc", Long.toString(pid), "fd", Integer.toString(fd));
        try {
            boolean pipe = Files.readSymbolicLink(link).toString().startsWith("pipe:");
            boolean wanted = fd == 0 ? pipe == ((flags & STDIN_PIPE) != 0) : pipe;
            if (!wanted || (!pipe && !Files.isRegularFile(link))) {
                return null;
            }
            FileChannel c = FileChannel.open(link, mode);
            // The pid could have been reused between the CALL and the open: then this is not our caller's.
            if (!startTime.equals(startTime(pid))) {
                closeQuietly(c);
                return null;
            }
            open.add(c);
            if (watch == null) {
                watch = WATCH.scheduleWithFixedDelay(this::check, WATCH_MILLIS, WATCH_MILLIS, TimeUnit.MILLISECONDS);
            }
            return c;
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private void check() {
        if (!startTime.equals(startTime(pid))) {
            callerGone = true;
            close();
        }
    }

    /**
     * The process's start time from {@code /proc/<pid>/stat} (field 22), which with the pid names one
     * process for good; null when there is no such live process (gone, zombie or dead).
     */
    static String startTime(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            // The command name (field 2) is in parentheses and may hold blanks: count fields after its end.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            char state = f[0].charAt(0);
            return state == 'Z' || state == 'X' || state == 'x' ? null : f[19];
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static void closeQuietly(FileChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // nothing was written through a failed close that matters: the call fails on its own
        }
    }
}
