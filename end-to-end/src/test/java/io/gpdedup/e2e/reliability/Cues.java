package io.gpdedup.e2e.reliability;

import io.gpdedup.e2e.data.Sha256Sink;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Copies a plugin call's stream (a backup's stdin, a restore's stdout) and does something once a
 * given number of bytes has passed: pause like gpbackup_helper between tables, kill the store, cut
 * the network. Moments are byte counts, never clock times, so a slow machine shifts nothing.
 */
final class Cues {
    /** Something done at a point of the stream. */
    interface Action {
        void run() throws Exception;
    }

    private record Cue(long at, Action action) {
    }

    private final List<Cue> cues = new ArrayList<>();

    /** Once {@code bytes} have been copied, {@code action} runs (the copy waits for it). */
    Cues at(long bytes, Action action) {
        cues.add(new Cue(bytes, action));
        return this;
    }

    /** A pause of the stream, as a caller between two tables. */
    static Action pause(long seconds) {
        return () -> TimeUnit.SECONDS.sleep(seconds);
    }

    /** Copies {@code from} to {@code to} in pieces of at most 1 MiB, running the cues on the way; returns the bytes copied. */
    long copy(InputStream from, OutputStream to) throws Exception {
        List<Cue> left = new ArrayList<>(cues);
        left.sort(Comparator.comparingLong(Cue::at));
        byte[] buf = new byte[1 << 20];
        long copied = 0;
        while (true) {
            while (!left.isEmpty() && left.get(0).at() <= copied) {
                left.remove(0).action().run();
            }
            long room = left.isEmpty() ? buf.length : Math.min(buf.length, left.get(0).at() - copied);
            int n = from.read(buf, 0, (int) room);
            if (n < 0) {
                return copied;
            }
            to.write(buf, 0, n);
            to.flush();
            copied += n;
        }
    }

    /** What a restore wrote: its exit status, its bytes' count and SHA-256, its stderr. */
    record Restored(int exit, long bytes, String sha256, String stderr) {
    }

    /** Reads a started restore's stdout to its end through these cues. */
    Restored read(Process restore) throws Exception {
        restore.getOutputStream().close();
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> text(restore.getErrorStream()));
        Sha256Sink sink = new Sha256Sink();
        try (InputStream out = restore.getInputStream()) {
            copy(out, sink);
        }
        if (!restore.waitFor(300, TimeUnit.SECONDS)) {
            restore.destroyForcibly();
            throw new AssertionError("the restore did not exit");
        }
        return new Restored(restore.exitValue(), sink.count(), sink.hex(), err.join());
    }

    static String text(InputStream in) {
        try (in) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
