package io.gpdedup.testsupport;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A tmpfs of a fixed size mounted for a test, so that a disk can really fill (ENOSPC) without
 * touching the machine's disks. Mounting needs root; where it is refused, {@link #mount} is empty
 * and the test skips. Closing unmounts (lazily if something still holds it).
 */
public final class Tmpfs implements AutoCloseable {
    private final Path at;

    private Tmpfs(Path at) {
        this.at = at;
    }

    /** Mounts a tmpfs of {@code bytes} at the existing empty directory {@code at}; empty when that is not allowed. */
    public static Optional<Tmpfs> mount(Path at, long bytes) throws InterruptedException {
        try {
            return run("mount", "-t", "tmpfs", "-o", "size=" + bytes, "tmpfs", at.toString()) ? Optional.of(new Tmpfs(at)) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    public Path path() {
        return at;
    }

    /** Bytes free on it now. */
    public long free() {
        return at.toFile().getUsableSpace();
    }

    @Override
    public void close() throws IOException {
        try {
            if (!run("umount", at.toString())) {
                run("umount", "-l", at.toString());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while unmounting " + at, e);
        }
    }

    private static boolean run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return false;
        }
        return p.exitValue() == 0;
    }
}
