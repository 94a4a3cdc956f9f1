package io.gpdedup.store.container;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.logging.Logger;

/**
 * The one way the store creates files (0600) and directories (0700): its data holds backups and
 * password hashes, and a store started by hand runs under whatever umask its shell has. The mode
 * is given at creation, so a file is never readable by others, not even for a moment (the umask
 * can only take bits away). Files and directories that already exist keep their mode.
 */
public final class OwnerOnly {
    private static final Logger LOG = Logger.getLogger(OwnerOnly.class.getName());
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> DIRECTORY_MODE = PosixFilePermissions.fromString("rwx------");
    private static final FileAttribute<Set<PosixFilePermission>> FILE = PosixFilePermissions.asFileAttribute(FILE_MODE);
    private static final FileAttribute<Set<PosixFilePermission>> DIRECTORY = PosixFilePermissions.asFileAttribute(DIRECTORY_MODE);

    private OwnerOnly() {
    }

    /**
     * Creates {@code dir} and any missing parent, each 0700, and fsyncs the parent of each one it
     * creates: a unit, its containers/ or recipes/ must not vanish in a crash after the files in
     * them were made durable.
     */
    public static Path createDirectories(Path dir) throws IOException {
        Path absolute = dir.toAbsolutePath();
        Path existing = absolute;
        while (existing != null && !Files.isDirectory(existing)) {
            existing = existing.getParent();
        }
        Files.createDirectories(dir, DIRECTORY);
        if (existing != null && !existing.equals(absolute)) {
            for (Path p = absolute; !p.equals(existing); p = p.getParent()) {
                FileSync.syncDirectory(p.getParent());
            }
        }
        return dir;
    }

    /** Opens {@code file} with {@code options}; one that CREATE or CREATE_NEW makes is 0600. */
    public static FileChannel open(Path file, OpenOption... options) throws IOException {
        return FileChannel.open(file, Set.of(options), FILE);
    }

    /** A stream that creates or truncates {@code file} (0600 when created). */
    public static OutputStream newOutputStream(Path file) throws IOException {
        return Channels.newOutputStream(open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE));
    }

    /** Writes {@code bytes} as the whole of {@code file}, creating it 0600 if missing. */
    public static void write(Path file, byte[] bytes) throws IOException {
        try (FileChannel ch = open(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
        }
    }

    public static void writeString(Path file, String text) throws IOException {
        write(file, text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Takes group and other access away from an existing directory (an older store's, or one made
     * by hand under a loose umask), with a warning in the log: what is inside cannot then be
     * reached by others, whatever its own mode. A directory the store cannot change (another
     * owner's) keeps its mode, with a warning.
     */
    public static void tighten(Path dir, String what) {
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(dir);
            if (DIRECTORY_MODE.containsAll(mode)) {
                return;
            }
            String was = PosixFilePermissions.toString(mode);
            mode.retainAll(DIRECTORY_MODE);
            Files.setPosixFilePermissions(dir, mode);
            LOG.warning(() -> what + " " + dir + " was open to other users (" + was + "): set to " + PosixFilePermissions.toString(mode));
        } catch (IOException | UnsupportedOperationException e) {
            LOG.warning(() -> what + " " + dir + ": cannot check or tighten its mode (" + e.getMessage()
                    + "); make it accessible to this user only (chmod 700)");
        }
    }
}
