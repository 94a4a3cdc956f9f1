package io.gpdedup.store.container;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/** The durable-write primitives: a rename or create is on disk only once its directory is fsynced. */
public final class FileSync {
    private FileSync() {
    }

    /** Fsyncs a directory, making the creations, renames and deletions inside it durable. */
    public static void syncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** Writes {@code bytes} to a new file {@code temp} and fsyncs it; the caller renames it into place. */
    public static void writeAndSync(Path temp, byte[] bytes) throws IOException {
        try (FileChannel ch = OwnerOnly.open(temp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
    }

    /** Fsyncs a file written through a stream. */
    public static void syncFile(Path file) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
    }
}
